// Server settings of the embedded PostgreSQL, passed as `-c name=value` at every start so the
// tuning always follows the code that runs (ALTER SYSTEM cannot override a command-line value;
// use startEmbeddedPostgres({ settings }) instead). Workload: many short single-statement
// transactions from a few pipelined lanes, point reads and batched upserts by primary key, on a
// machine where Postgres itself is CPU-bound near 1.8 of 2 cores (docs/BENCHMARKS.md).
import os from 'node:os';

const kMiB = 1024 * 1024;

// 1/8 of RAM, clamped to 128 MiB..1 GiB. 1M keys of 1 KiB are ~1.6 GB of heap (5 rows per
// page at fillfactor 70), so 1 GiB keeps the hot part of a benchmark keyspace in shared buffers
// while leaving the rest of RAM to the OS cache (Postgres double-buffers through it) and to the
// Node workers. The segment is an anonymous mmap faulted in lazily: an idle test server costs
// only what it touched.
export function sharedBuffersMiB(totalBytes = os.totalmem()): number {
  return Math.min(1024, Math.max(128, Math.floor(totalBytes / 8 / kMiB)));
}

// Crash recovery first syncs the data folder. File by file (fsync, the default) took 1.3–2.1 s
// here before redo even started (kill -9 right after writing 50k rows); syncfs() of the file
// system 0.04–0.11 s, and the whole restart went from 1.7–2.6 s to 0.65–0.8 s. Linux 5.8+ only:
// older kernels do not report write errors to syncfs() callers (PostgreSQL's documentation), and
// other systems lack it (the value would be refused). It also flushes other programs' dirty pages
// on the same file system: on one busy with someone else's writes, it can be the slower choice.
export function recoverySyncMethod(platform: string = process.platform, release: string = os.release()): 'syncfs' | 'fsync' {
  const [major, minor] = release.split('.').map((n) => parseInt(n, 10));
  return platform === 'linux' && (major > 5 || (major === 5 && minor >= 8)) ? 'syncfs' : 'fsync';
}

export function serverSettings(socketDir: string): Record<string, string> {
  return {
    listen_addresses: '127.0.0.1', // embedded means local only; remote use goes through --pg-url
    // Unix socket in the data folder (not /tmp): no clash with a system Postgres on 5432, and
    // removed with the folder. '' when the path would pass the 107-byte sun_path limit.
    unix_socket_directories: socketDir,
    shared_buffers: `${sharedBuffersMiB()}MB`,
    // Lanes per worker × workers (2–8 × 4–8 measured useful) + primary + 2 concurrent test files
    // each opening their own pools. Every slot costs ~10 KB of shared memory until used.
    max_connections: '200',
    // Batched upserts of 1 KiB values wrote 1.5 KB of WAL per row here (16-row batches, random
    // keys, right after a checkpoint, full-page images included): ~135 MB/s at the design's target of
    // ~90k rows/s, so the default 1 GB would force a checkpoint every ~8 s, each restarting
    // full-page images. 2 GB halves that while keeping replay after kill -9 to seconds
    // (durability tests restart right after killing the server).
    max_wal_size: '2GB',
    min_wal_size: '256MB', // recycle segments instead of creating them during bursts
    checkpoint_timeout: '15min', // time-triggered checkpoints rarely matter next to WAL volume
    checkpoint_completion_target: '0.9', // spread checkpoint writes: no I/O cliff under load
    // logged-async acknowledges before the WAL flush; the loss window after a crash is ~3 ×
    // wal_writer_delay. 20 ms bounds it near 60 ms (default 200 ms: ~600 ms) for at most 50
    // walwriter flushes/s, and the walwriter hibernates when idle.
    wal_writer_delay: '20ms',
    // Also flush when 1 MB is pending inside one delay: above ~50 MB/s of async WAL this keeps each
    // fsync short instead of letting 2+ MB of dirty WAL pile up per 20 ms tick (the default, said
    // explicitly so the pair is documented together).
    wal_writer_flush_after: '1MB',
    // Durability is decided per session (sessionSettings in schema.ts): `logged` sessions set
    // synchronous_commit = on, `logged-async` off. The server default stays on (safe default for
    // anything else that connects). fsync and full_page_writes stay on: the durability tests
    // kill -9 the server and expect every acknowledged `logged` write back.
    synchronous_commit: 'on',
    // Group commit across lanes (`logged` only: no other commit waits for a flush). A committing
    // backend that sees another transaction in progress waits 300 µs before flushing, so the
    // other lanes' commits join the same fdatasync. Seed config SET (-c 20 -P 1), 2 workers:
    // 3,842 / 3,167 requests/s with it, 3,060 / 2,741 without (alternating runs, same session;
    // redis-server appendfsync always 4.6k–6.1k); 100 µs gained nothing, 1,000 µs less than 300.
    commit_delay: '300',
    commit_siblings: '1',
    fsync: 'on',
    full_page_writes: 'on',
    recovery_init_sync_method: recoverySyncMethod(), // restart after kill -9 (embedded-supervisor.ts)
    // Point lookups and batched upserts gain nothing from parallel plans; on 2 cores a parallel
    // worker only steals CPU from the backends serving other lanes.
    // Two lanes' batch transactions (workers/storage/batch-tx.ts) that lock the same rows in
    // opposite orders deadlock; Postgres looks for that only after a lock wait this long, and the
    // default 1 s stalls both lanes for it (10 such stalls in 600k random-key ZADD/LPOP requests,
    // docs/BENCHMARKS.md). A wait between lanes is otherwise one batch long (a few ms).
    deadlock_timeout: '50ms',
    max_parallel_workers_per_gather: '0',
    // JIT compiles a query in 10–100 ms when its cost passes 100k; a large batched unnest could
    // cross that, and no statement of ours runs long enough to win it back.
    jit: 'off',
    // Log to files in <data>/log, rotated daily by weekday name (7 files, each truncated on reuse),
    // written by the collector so logging survives the death of the PostRESP process.
    logging_collector: 'on',
    log_directory: 'log',
    log_filename: 'postgresql-%a.log',
    log_truncate_on_rotation: 'on',
    log_rotation_age: '1d',
    log_rotation_size: '0',
  };
}

// `-c name=value` pairs for the postgres command line, defaults first, overrides last.
export function settingsArgs(socketDir: string, overrides: Record<string, string> = {}): string[] {
  const all = { ...serverSettings(socketDir), ...overrides };
  return Object.entries(all).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
}
