/**
 * `npm run bench:bus -- pubsub`: PUBLISH → message latency through the real commands, PostRESP
 * and redis-server measured the same way in the same run: one Node process, ioredis publisher
 * and subscriber(s), an open loop at each rate (1 ms tick), 1 KB messages whose first 8 bytes
 * carry the send time (µs). Targets:
 *
 *   redis-server                   one redis-server
 *   postresp, same instance        one PostRESP, 2 workers: publisher and subscriber land on
 *                                  different workers (the primary deals connections in turn)
 *   postresp, across two           publisher on instance A, subscriber on instance B (same
 *                                  schema): LISTEN/NOTIFY between them
 *
 * and fan-out: one publisher, 100 subscribers (on B for "across two"). --old <package root> starts a
 * third instance from another build (e.g. a copy of main's dist/ and build/ with its package.json)
 * for targets worker-old and cross-old: old and new measured alternately in the same minutes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import * as hdr from 'hdr-histogram-js';
import type { SubResult } from './node';

interface Target { name: string; id: string; pub: number; sub: number; sameWorker?: boolean; pids: () => number[]; pgPid: () => number | undefined }
type Measured = SubResult & { perSec: number; serverUs: number; pgUs: number; clientUs: number };
/** old: the package root of another build (its dist/), for targets worker-old and cross-old */
export interface PubsubOptions { rounds: number; targets: string[]; fanout: boolean; pgPid: () => number | undefined; old?: string }
interface Db { url: string; schema: string }

const nowUs = (): number => Number(process.hrtime.bigint()) / 1000;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

async function startPostresp(db: Db, started: ChildProcess[], root?: string): Promise<{ port: number; child: ChildProcess }> {
  const main = root === undefined ? path.resolve(__dirname, '..', '..', 'core', 'primary', 'main.js') : path.resolve(root, 'dist', 'core', 'primary', 'main.js');
  // BENCH_NODE_ARGS: e.g. --cpu-prof --cpu-prof-dir=/tmp/prof, to profile the servers
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((x) => x !== '');
  const child = spawn(process.execPath, [...nodeArgs, main, '--port', '0', '--pg-url', db.url, '--schema', db.schema, '--storage-mode', 'unlogged',
    '--workers', '2', '--loglevel', 'warning'], { stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(child);
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Ready to accept connections tcp \S+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`PostRESP exited with ${code}: ${out}`)));
  });
  return { port, child };
}

/** utime + stime (µs) of these processes, from /proc/<pid>/stat (clock ticks of 10 ms). */
function cpuUs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      ticks += Number(rest[11]) + Number(rest[12]);
    } catch { /* gone */ }
  }
  return ticks * 10_000;
}

/** pid and every descendant (Postgres: the postmaster and its backends). */
function withChildren(root: number): number[] {
  const parent = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = fs.readFileSync(`/proc/${d}/stat`, 'latin1');
      parent.set(Number(d), Number(f.slice(f.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, pp] of parent) if (pp === out[i]) out.push(pid);
  return out;
}

/**
 * `subscribers` ioredis subscribers on target.sub, one publisher on target.pub, `rate` msgs/s for
 * `seconds`. PostRESP deals each connection to the worker with the fewest (ties: the first), so
 * with nothing else connected the first subscriber lands on worker 0 and the publisher on worker
 * 1; t.sameWorker opens a spacer connection first (to worker 1), so the publisher joins worker 0.
 */
async function measure(t: Target, rate: number, seconds: number, subscribers: number): Promise<Measured> {
  const { default: Redis } = await import('ioredis');
  // the previous run's connections must be gone for the placement above
  let first0: InstanceType<typeof Redis>;
  for (let tries = 0; ; tries++) {
    first0 = new Redis(t.sub, '127.0.0.1');
    const info = String(await first0.info('clients'));
    if (/connected_clients:1\r?\n/.test(info) || tries > 50) break;
    first0.disconnect();
    await new Promise((r) => setTimeout(r, 100));
  }
  const subs = [first0, ...Array.from({ length: subscribers - 1 }, () => new Redis(t.sub, '127.0.0.1'))];
  await Promise.all(subs.map((s) => s.ping()));
  const spacer = t.sameWorker ? new Redis(t.pub, '127.0.0.1') : undefined;
  await spacer?.ping();
  const pub = new Redis(t.pub, '127.0.0.1');
  await pub.ping();
  const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });
  const replies = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });
  const expect = rate * seconds * subscribers;
  let got = 0;
  let first = 0;
  let last = 0;
  const done = new Promise<void>((resolve) => {
    for (const s of subs) {
      s.on('messageBuffer', (_c: Buffer, m: Buffer) => {
        const now = nowUs();
        if (first === 0) first = now;
        last = now;
        h.recordValue(Math.max(1, Math.round(now - m.readDoubleLE(0))));
        if (++got === expect) resolve();
      });
    }
  });
  await Promise.all(subs.map((s) => s.subscribe('lat')));
  const pids = t.pids();
  const pg = t.pgPid() !== undefined ? withChildren(t.pgPid()!) : [];
  const cpu0 = cpuUs(pids);
  const pg0 = cpuUs(pg);
  const client0 = process.cpuUsage();
  const t0 = nowUs();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(rate * seconds, Math.floor(((nowUs() - t0) / 1e6) * rate));
      while (sent < due) {
        const m = Buffer.alloc(1024, 0x61);
        m.writeDoubleLE(nowUs(), 0);
        const at = nowUs();
        void pub.publish('lat', m).then(() => replies.recordValue(Math.max(1, Math.round(nowUs() - at))));
        sent++;
      }
      if (sent >= rate * seconds) { clearInterval(tick); resolve(); }
    }, 1);
  });
  await Promise.race([done, new Promise((r) => setTimeout(r, 10_000))]);
  const serverUs = (cpuUs(pids) - cpu0) / Math.max(1, sent);
  const c = process.cpuUsage(client0);
  const clientUs = (c.user + c.system) / Math.max(1, sent);
  const pgUs = (cpuUs(pg) - pg0) / Math.max(1, sent);
  if (process.env.BENCH_DEBUG) console.log(`  PUBLISH reply p50 ${replies.getValueAtPercentile(50)} p99 ${replies.getValueAtPercentile(99)} max ${replies.maxValue} µs`);
  for (const s of subs) s.disconnect();
  pub.disconnect();
  spacer?.disconnect();
  return { got, p50: h.getValueAtPercentile(50), p99: h.getValueAtPercentile(99), p999: h.getValueAtPercentile(99.9),
    max: h.maxValue, elapsedMs: (last - first) / 1000, perSec: Math.round(got / Math.max(1e-3, (last - first) / 1e6)), serverUs, pgUs, clientUs };
}

const row = (name: string, rate: number, r: Measured, expect: number, fan = false) =>
  `${name.padEnd(26)} ${String(rate).padStart(6)} ${String(r.got).padStart(8)}/${String(expect).padEnd(8)}` +
  `${fan ? String(r.perSec).padStart(10) : ''} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.p999).padStart(8)} ${String(r.max).padStart(8)}` +
  ` ${r.serverUs.toFixed(1).padStart(8)} ${r.pgUs.toFixed(1).padStart(6)} ${r.clientUs.toFixed(1).padStart(6)}`;

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]!; };

/**
 * targets (--targets): redis, worker (PostRESP, publisher and subscriber on one worker), cross
 * (on the two workers of one instance), two (two instances through Postgres). --rounds N
 * repeats every (rate, target) N times, alternating targets within each round; medians at the end.
 */
export async function pubsubBench(database: () => Promise<Db>, seconds: number, allRates: number[], opts: PubsubOptions): Promise<void> {
  const rates = allRates.filter((r) => r > 0); // --rates 0: fan-out alone
  const redisPort = await freePort();
  const redis = spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const started: ChildProcess[] = [];
  try {
    const db = await database();
    const a = await startPostresp(db, started);
    const b = await startPostresp(db, started);
    const c = opts.old !== undefined ? await startPostresp(db, started, opts.old) : undefined;
    await new Promise((r) => setTimeout(r, 300));
    const pg = opts.pgPid;
    const all: Target[] = [
      { name: 'redis-server', id: 'redis', pub: redisPort, sub: redisPort, pids: () => [redis.pid!], pgPid: () => undefined },
      { name: 'postresp, same worker', id: 'worker', pub: a.port, sub: a.port, sameWorker: true, pids: () => [a.child.pid!], pgPid: pg },
      { name: 'postresp, other worker', id: 'cross', pub: a.port, sub: a.port, pids: () => [a.child.pid!], pgPid: pg },
      ...(c === undefined ? [] : [
        { name: 'old build, same worker', id: 'worker-old', pub: c.port, sub: c.port, sameWorker: true, pids: () => [c.child.pid!], pgPid: pg },
        { name: 'old build, other worker', id: 'cross-old', pub: c.port, sub: c.port, pids: () => [c.child.pid!], pgPid: pg },
      ]),
      { name: 'postresp, across two', id: 'two', pub: a.port, sub: b.port, pids: () => [a.child.pid!, b.child.pid!], pgPid: pg },
    ];
    const targets = all.filter((t) => opts.targets.includes(t.id));
    console.log(`\nPUBLISH → message through the commands (ioredis, one Node process), 1 KB, ${seconds} s open loop, ${opts.rounds} round(s)`);
    console.log(`${'target'.padEnd(26)} rate/s delivered/expected  p50 µs  p99 µs  p99.9 µs   max µs  srv µs/msg pg µs/msg cli µs/msg`);
    // warm-up, not reported: connections, the instances' interest registration, Postgres plans
    for (const t of targets) await measure(t, 1000, 1, 1);
    const results = new Map<string, Measured[]>();
    for (let round = 0; round < opts.rounds; round++) {
      for (const rate of rates) {
        // alternate the order between rounds too, so no target always runs first after a pause
        const order = round % 2 === 0 ? targets : [...targets].reverse();
        for (const t of order) {
          const r = await measure(t, rate, seconds, 1);
          console.log(row(t.name, rate, r, rate * seconds));
          const k = `${t.name}|${rate}`;
          results.set(k, [...(results.get(k) ?? []), r]);
        }
      }
    }
    if (opts.rounds > 1) {
      console.log(`\nmedians of ${opts.rounds} rounds`);
      console.log(`${'target'.padEnd(26)} rate/s   p50 µs   p99 µs p99.9 µs  srv µs/msg pg µs/msg  (p99 of each round)`);
      for (const rate of rates) {
        for (const t of targets) {
          const rs = results.get(`${t.name}|${rate}`)!;
          const m = (f: (r: Measured) => number) => median(rs.map(f));
          console.log(`${t.name.padEnd(26)} ${String(rate).padStart(6)} ${String(m((r) => r.p50)).padStart(8)} ${String(m((r) => r.p99)).padStart(8)} ` +
            `${String(m((r) => r.p999)).padStart(8)} ${m((r) => r.serverUs).toFixed(1).padStart(10)} ${m((r) => r.pgUs).toFixed(1).padStart(8)}  (${rs.map((r) => r.p99).join(', ')})`);
        }
      }
    }
    if (!opts.fanout) return;

    console.log(`\nfan-out: 1 publisher → 100 subscribers, 1 KB, ${seconds} s`);
    console.log(`${'target'.padEnd(26)} msgs/s delivered/expected deliv/s  p50 µs  p99 µs  p99.9 µs   max µs  srv µs/msg pg µs/msg cli µs/msg`);
    const fanTargets = targets.filter((x) => !x.id.startsWith('worker'));
    const fan = new Map<string, Measured[]>();
    for (let round = 0; round < opts.rounds; round++) {
      for (const rate of [1000, 2000]) {
        for (const t of round % 2 === 0 ? fanTargets : [...fanTargets].reverse()) {
          const r = await measure(t, rate, seconds, 100);
          console.log(row(t.name, rate, r, rate * seconds * 100, true));
          fan.set(`${t.name}|${rate}`, [...(fan.get(`${t.name}|${rate}`) ?? []), r]);
        }
      }
    }
    if (opts.rounds > 1) {
      console.log(`\nfan-out medians of ${opts.rounds} rounds`);
      console.log(`${'target'.padEnd(26)} msgs/s  deliv/s   p50 µs   p99 µs p99.9 µs  srv µs/msg pg µs/msg  (p99 of each round)`);
      for (const rate of [1000, 2000]) {
        for (const t of fanTargets) {
          const rs = fan.get(`${t.name}|${rate}`)!;
          const m = (f: (r: Measured) => number) => median(rs.map(f));
          console.log(`${t.name.padEnd(26)} ${String(rate).padStart(6)} ${String(m((r) => r.perSec)).padStart(8)} ${String(m((r) => r.p50)).padStart(8)} ${String(m((r) => r.p99)).padStart(8)} ` +
            `${String(m((r) => r.p999)).padStart(8)} ${m((r) => r.serverUs).toFixed(1).padStart(10)} ${m((r) => r.pgUs).toFixed(1).padStart(8)}  (${rs.map((r) => r.p99).join(', ')})`);
        }
      }
    }
  } finally {
    redis.kill();
    // stopped before the caller stops an embedded Postgres under them (also when one failed to start)
    await Promise.all(started.map((c) => new Promise((r) => { if (c.exitCode !== null || c.signalCode !== null) r(null); else { c.once('exit', r); c.kill(); } })));
  }
}
