// `npm run bench:write-latency`: 1 KiB SETs open-loop at a fixed rate against fresh servers in
// four pairings — PostRESP logged ↔ redis-server appendfsync always, PostRESP unlogged ↔
// redis-server without persistence — and P50/P95/P99/max per pairing; with --slo, the highest
// rate each one holds with the objective met. Everything that sends, schedules and records is
// the harness's own open loop (clients.ts/worker.ts via runTest): each reply is recorded as
// reply time − the request's intended send time, so a stall is charged to every request queued
// behind it (coordinated omission corrected, wrk2's method).
//
// Servers run one at a time, each started fresh just before its runs and stopped right after,
// so the machine carries one server (and one Postgres) at a time.

import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from './cli';
import { embeddedPostgresVersion, gitCommit, peerVersionText } from './matrix';
import { OptionsError, parseArgs as parseHarnessArgs, type HarnessOptions } from './options';
import { machine } from './output';
import { searchRate } from './rate-search';
import { sloVerdicts, summarize } from './report';
import { runTest } from './run';
import { peerBinary, startPeer, startPostresp, stopServersOnSignal, type PersistenceMode, type ServerHandle } from './servers';
import { selectTests } from './workloads';
import { kWriteLatencyUsage, parseWriteLatencyArgs, type Durability, type WriteLatencyOptions } from './write-latency-options';
import { runTable, sloTable, type RunRow, type SloRow } from './write-latency-report';

/** A step holds the rate when it achieved at least this share of it. */
export const kAchievedShare = 0.99;

interface Side {
  server: string;
  durability: string;
  start: (dir: string) => Promise<ServerHandle>;
}

const kStorageMode: Record<Durability, string> = { durable: 'logged', volatile: 'unlogged' };
const kPeerMode: Record<Durability, PersistenceMode> = { durable: 'aof-always', volatile: 'none' };
const kPeerLabel: Record<Durability, string> = { durable: 'appendonly yes, appendfsync always', volatile: "save '', appendonly no" };

/** The servers in table order: for each pairing, PostRESP then the peer. */
export function plannedSides(w: WriteLatencyOptions): Side[] {
  const peer = peerBinary()?.name === 'valkey' ? 'valkey-server' : 'redis-server';
  const out: Side[] = [];
  for (const d of w.durabilities) {
    const mode = kStorageMode[d];
    if (w.only !== 'redis') {
      out.push({
        server: 'PostRESP',
        durability: `--storage-mode ${mode}`,
        start: (dir) => startPostresp({ storageMode: mode, dataDir: w.pgUrl === null ? join(dir, `pg-${mode}`) : null, pgUrl: w.pgUrl, schema: w.schema }),
      });
    }
    if (w.only !== 'postresp') {
      out.push({ server: peer, durability: kPeerLabel[d], start: (dir) => startPeer(kPeerMode[d], join(dir, `peer-${kPeerMode[d]}`)) });
    }
  }
  return out;
}

/** The harness's options for one open-loop SET run at `rate` against `s`. */
export function harnessOptions(w: WriteLatencyOptions, s: { host: string; port: number }, rate: number, duration: number): HarnessOptions {
  const argv = ['-h', s.host, '-p', String(s.port), '-t', 'set', '-d', String(w.dataSize), '-r', String(w.keyspace),
    '-c', String(w.connections), '--rps', String(rate), '--duration', String(duration), '--warmup', String(w.warmup), '--nap', String(w.napUs)];
  if (w.threads > 0) argv.push('--threads', String(w.threads));
  if (w.slo !== null) argv.push('--slo', w.slo.text);
  return parseHarnessArgs(argv);
}

export async function measureRun(w: WriteLatencyOptions, side: Side, s: ServerHandle, rate: number, duration: number): Promise<RunRow> {
  const o = harnessOptions(w, s, rate, duration);
  const r = await runTest(o, selectTests(o)[0]);
  const row: RunRow = {
    server: side.server,
    durability: side.durability,
    rate,
    latency: summarize(r.histogram),
    achieved: r.rps,
    errors: r.errors + r.unanswered,
    load: loadavg(),
    failure: r.failure,
  };
  if (w.slo !== null) {
    const held = sloVerdicts(o, r).every((v) => v.pass);
    const fast = r.rps >= kAchievedShare * rate;
    row.pass = r.failure === null && held && fast;
    if (row.failure === null && !fast) row.failure = `achieved ${Math.round(r.rps)}/s < ${kAchievedShare * 100}% of ${rate}/s`;
  }
  r.histogram.destroy();
  return row;
}

function header(w: WriteLatencyOptions): string[] {
  const m = machine();
  const commit = gitCommit();
  const lines = [
    `Write latency at a fixed rate: SET key:<random below ${w.keyspace}> <${w.dataSize} B value> over ${w.connections} connections, ` +
      (w.slo === null ? `${w.rps} requests/s, ${w.duration} s recorded after ${w.warmup} s warm-up.` : `steps of ${w.stepDuration} s recorded after ${w.warmup} s warm-up, from ${w.rps} requests/s.`),
    "Open loop, coordinated omission corrected: every request is sent at its intended time whatever the replies, and its latency is recorded (hdr-histogram recordValue) as reply time − intended send time; nothing is back-filled with recordCorrectedValue." +
      (w.napUs > 0 ? ` Between sends the load threads sleep in slices of ${w.napUs} µs instead of spinning (--nap), which adds up to that much to a latency.` : ''),
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.kernel}, Node ${m.node}; load average at start ${loadavg().map((x) => x.toFixed(2)).join(' ')}.`,
    `Versions: PostRESP ${commit.short}${commit.dirty ? ' (uncommitted changes)' : ''}, embedded Postgres ${embeddedPostgresVersion() ?? '?'}, ${peerVersionText() ?? 'no redis-server'}.`,
  ];
  if (w.slo !== null) {
    lines.push(`A step holds when ${w.slo.text} is met, there are no errors and it achieves >= ${kAchievedShare * 100}% of the asked rate; the rate doubles until a step fails, then bisects (at most ${w.maxSteps} steps per server, stopping at ${w.resolution * 100}% resolution).`);
  }
  return lines;
}

async function runSide(w: WriteLatencyOptions, side: Side, dir: string, io: CliIo, runs: RunRow[], slos: SloRow[]): Promise<void> {
  const name = `${side.server} (${side.durability})`;
  io.err(`Starting ${name}...\n`);
  let s: ServerHandle;
  try {
    s = await side.start(dir);
  } catch (err) {
    const why = `failed to start: ${(err as Error).message.split('\n')[0]}`;
    io.err(`  ${why}\n`);
    if (w.slo !== null) slos.push({ server: side.server, durability: side.durability, best: 0, firstFail: Infinity, steps: 0, at: null, failure: why });
    else runs.push({ server: side.server, durability: side.durability, rate: w.rps, latency: null, achieved: 0, errors: 0, load: loadavg(), failure: why });
    return;
  }
  io.err(`  ready at ${s.host}:${s.port}: ${s.command.join(' ')}\n`);
  const log = (r: RunRow): void => {
    const l = r.latency ?? { p50: 0, p95: 0, p99: 0, max: 0 };
    io.err(`  ${r.rate}/s: p50 ${l.p50.toFixed(3)} p95 ${l.p95.toFixed(3)} p99 ${l.p99.toFixed(3)} max ${l.max.toFixed(3)} ms, achieved ${Math.round(r.achieved)}/s, errors ${r.errors}` +
      `${r.pass === undefined ? '' : r.pass ? ', held' : ', missed'}${r.failure !== null ? ` (${r.failure})` : ''}; load ${r.load.map((x) => x.toFixed(2)).join(' ')}\n`);
  };
  try {
    if (w.slo === null) {
      const row = await measureRun(w, side, s, w.rps, w.duration);
      log(row);
      runs.push(row);
      return;
    }
    const passed = new Map<number, RunRow>();
    const result = await searchRate({ start: w.rps, min: w.connections, maxSteps: w.maxSteps, resolution: w.resolution }, async (rate) => {
      const row = await measureRun(w, side, s, rate, w.stepDuration);
      log(row);
      runs.push(row);
      if (row.pass === true) passed.set(rate, row);
      return { rate, pass: row.pass === true };
    });
    slos.push({ server: side.server, durability: side.durability, ...result, at: passed.get(result.best) ?? null, failure: null });
  } finally {
    io.err(`  stopping ${name}\n`);
    await s.stop();
  }
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  let w: WriteLatencyOptions;
  try {
    w = parseWriteLatencyArgs(argv);
  } catch (err) {
    if (!(err instanceof OptionsError)) throw err;
    io.err(`${err.message}\n\n${kWriteLatencyUsage}`);
    return 1;
  }
  if (w.help) {
    io.out(kWriteLatencyUsage);
    return 0;
  }
  const dir = mkdtempSync(join(tmpdir(), 'postresp-write-latency-'));
  const runs: RunRow[] = [];
  const slos: SloRow[] = [];
  const head = header(w);
  try {
    for (const side of plannedSides(w)) await runSide(w, side, dir, io, runs, slos);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const out = [...head, '', ...runTable(runs, w.slo !== null)];
  if (w.slo !== null) out.push('', ...sloTable(slos, w.slo.text));
  io.out(`${out.join('\n')}\n`);
  const broken = w.slo === null ? runs.some((r) => r.failure !== null) : slos.some((r) => r.failure !== null);
  return broken ? 1 : 0;
}

if (require.main === module) {
  stopServersOnSignal();
  const io: CliIo = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s), tty: process.stdout.isTTY === true };
  main(process.argv.slice(2), io).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
}
