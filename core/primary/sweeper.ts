/**
 * Active expiry: deletes keys whose TTL passed, in bounded chunks, like Redis's active expire
 * cycle (reads already hide them: lazy expiry; this reclaims the rows). Runs on the primary over
 * a connection of its own (core/primary/primary-pg.ts runs one query at a time, and
 * INFO's counts must not queue behind a sweep).
 *
 *   every intervalMs:  chunk ─ full? ─ yes, within budgetMs? ─▶ chunk …
 *                        │ no                  │ no (backlog left)
 *                        ▼                     ▼
 *                  next in intervalMs    next in 3 × time spent (≤ 25% of the time, as Redis)
 *
 * One chunk is one statement:
 *   WITH c AS MATERIALIZED (SELECT ctid … ORDER BY expires_at LIMIT n FOR UPDATE SKIP LOCKED)
 *   DELETE FROM kv WHERE ctid = ANY (ARRAY(SELECT ctid FROM c))
 * MATERIALIZED pins the LIMIT: with `ctid IN (SELECT … LIMIT n)` the planner may run the
 * subquery per row and delete more than n. `= ANY (ARRAY(…))` pins the TID scan: with
 * `USING c WHERE kv.ctid = c.ctid` the planner hash-joins c against a sequential scan of all of
 * kv once chunks grow (measured, 300k rows: 5000-row chunk 170 ms that way, 31 ms by TID; 500
 * rows 3–5 ms either way). SKIP LOCKED lets several PostRESP instances sweep one
 * keyspace, and never waits on a client's write; a key whose TTL a client just extended is
 * re-checked under the row lock (READ COMMITTED re-evaluates the WHERE) and left alone.
 * Collection rows go with their kv row (trigger kv_deleted, schema v4).
 *
 * While some worker's write hook listens (core/engine/write-hook.ts), a chunk returns the keys
 * it deleted instead of their count, and they go to the workers as Redis's `expired` events,
 * after the chunk's commit.
 */
import { kWatchMark } from '../engine/commands/kv-row';
import type { PrimaryPg } from './primary-pg';

export interface SweeperOptions {
  intervalMs: number;
  /** rows per statement */
  chunk: number;
  /** longest time one cycle keeps deleting */
  budgetMs: number;
  /** a WATCH mark not watched again for this long is deleted (engine/commands/transactions/functions.ts),
   *  checked every markCheckMs */
  markTtlMs: number;
  markCheckMs: number;
  log: (line: string) => void;
  expired?: ExpiredSink;
}

/** Where deleted keys go (the worker pool): asked before each chunk whether anybody listens. */
export interface ExpiredSink {
  listening(): boolean;
  report(dbs: number[], keys: Buffer[]): void;
}

// A deleted string row costs ~1–7 µs by TID; a collection key also runs its family's DELETE
// (trigger kv_deleted). Up to schema v3 four FOREIGN KEY … ON DELETE CASCADE checks made every
// row ~48 µs: 500 rows ≈ 25 ms, one chunk ≈ the cycle's budget. The chunk stays 500 so a client
// writing one of those expired keys waits at most that long for the sweeper's row lock even when
// every expired key is a large collection.
// A mark outlives a WATCH held an hour between WATCH and EXEC; checking once a minute is one
// index probe, empty unless a process died with clients watching absent keys.
export const kSweeperDefaults: Omit<SweeperOptions, 'log' | 'expired'> = {
  intervalMs: 100, chunk: 500, budgetMs: 25, markTtlMs: 3_600_000, markCheckMs: 60_000,
};
const kRetryMs = 1000;

// expires_at > 0: WATCH marks (expires_at ≤ 0, core/engine/commands/kv-row.ts) are not expired
// keys, and the range keeps them out of the index scan instead of filtering them row by row
const kSweepChunk = `WITH c AS MATERIALIZED (
    SELECT ctid FROM kv WHERE expires_at > 0 AND expires_at <= $1::int8 ORDER BY expires_at LIMIT $2::int4 FOR UPDATE SKIP LOCKED),
  d AS (DELETE FROM kv WHERE ctid = ANY (ARRAY(SELECT ctid FROM c))`;
const kSweep = `${kSweepChunk} RETURNING 1) SELECT count(*)::int4 FROM d`;
const kSweepKeys = `${kSweepChunk} RETURNING db, key) SELECT db, key FROM d`;

// Marks whose watchers vanished without releasing them (a process killed): last WATCH before $1
// (expires_at = -(its ms)). A client still watching such a key then fails its EXEC: safe, and
// only after an hour between WATCH and EXEC.
const kSweepMarks = `WITH c AS MATERIALIZED (
    SELECT ctid FROM kv WHERE expires_at > -$1::int8 AND expires_at <= 0 AND type = ${kWatchMark}
    LIMIT $2::int4 FOR UPDATE SKIP LOCKED)
  DELETE FROM kv WHERE ctid = ANY (ARRAY(SELECT ctid FROM c))`;

export class Sweeper {
  /** keys deleted since start (INFO expired_keys, postresp_sweeper_deleted_total) */
  deleted = 0;
  cycles = 0;
  errors = 0;
  /** WATCH marks deleted as abandoned */
  marksDeleted = 0;
  private marksCheckedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly opts: SweeperOptions;

  constructor(private readonly pg: PrimaryPg, opts: Partial<SweeperOptions> & Pick<SweeperOptions, 'log'>) {
    this.opts = { ...kSweeperDefaults, ...opts };
    if (!(this.opts.chunk >= 1 && this.opts.intervalMs >= 1 && this.opts.budgetMs >= 1 && this.opts.markTtlMs >= 0)) {
      throw new RangeError(`sweeper: chunk, intervalMs and budgetMs must be ≥ 1, markTtlMs ≥ 0 (got ${JSON.stringify(opts)})`);
    }
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(this.opts.intervalMs);
  }

  /** Stops scheduling and waits for a cycle in progress (its transaction commits or fails). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.cycle().then((next) => this.schedule(next), () => this.schedule(kRetryMs));
    }, ms);
    this.timer.unref();
  }

  /** One cycle; resolves to the delay before the next. */
  async cycle(): Promise<number> {
    const t0 = performance.now();
    this.cycles++;
    let full = false;
    try {
      do {
        const n = await this.sweepChunk();
        this.deleted += n;
        full = n === this.opts.chunk;
      } while (full && !this.stopped && performance.now() - t0 < this.opts.budgetMs);
      if (Date.now() - this.marksCheckedAt >= this.opts.markCheckMs) await this.sweepMarks();
    } catch (e) {
      if (this.errors++ === 0 || this.errors % 100 === 0) this.opts.log(`expiry sweeper: ${(e as Error).message} (${this.errors} errors so far)`);
      return kRetryMs;
    }
    return full ? Math.max(1, Math.round(3 * (performance.now() - t0))) : this.opts.intervalMs;
  }

  /** One chunk; resolves to the number of keys it deleted. */
  private async sweepChunk(): Promise<number> {
    const values = [String(Date.now()), String(this.opts.chunk)];
    const sink = this.opts.expired;
    if (sink === undefined || !sink.listening()) return (await this.pg.query(kSweep, values))[0][0] as number;
    const rows = await this.pg.query(kSweepKeys, values);
    if (rows.length > 0) sink.report(rows.map((r) => r[0] as number), rows.map((r) => r[1] as Buffer));
    return rows.length;
  }

  /** Deletes abandoned WATCH marks, a chunk at a time (the next check takes the rest). */
  async sweepMarks(): Promise<void> {
    this.marksCheckedAt = Date.now();
    const rows = await this.pg.query(`WITH d AS (${kSweepMarks} RETURNING 1) SELECT count(*)::int4 FROM d`,
      [String(Date.now() - this.opts.markTtlMs), String(this.opts.chunk)]);
    this.marksDeleted += rows[0][0] as number;
  }
}
