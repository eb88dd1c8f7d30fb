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
 * and fan-out: one publisher, 100 subscribers (on B for "across two").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import * as hdr from 'hdr-histogram-js';
import type { SubResult } from './node';

interface Target { name: string; pub: number; sub: number }
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

async function startPostresp(db: Db): Promise<{ port: number; child: ChildProcess }> {
  const main = path.resolve(__dirname, '..', '..', 'core', 'primary', 'main.js');
  const child = spawn(process.execPath, [main, '--port', '0', '--pg-url', db.url, '--schema', db.schema, '--storage-mode', 'unlogged',
    '--workers', '2', '--loglevel', 'warning'], { stdio: ['ignore', 'pipe', 'inherit'] });
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

/** `subscribers` ioredis subscribers on target.sub, one publisher on target.pub, `rate` msgs/s for `seconds`. */
async function measure(t: Target, rate: number, seconds: number, subscribers: number): Promise<SubResult & { perSec: number }> {
  const { default: Redis } = await import('ioredis');
  const subs = Array.from({ length: subscribers }, () => new Redis(t.sub, '127.0.0.1'));
  const pub = new Redis(t.pub, '127.0.0.1');
  const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });
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
  const t0 = nowUs();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(rate * seconds, Math.floor(((nowUs() - t0) / 1e6) * rate));
      while (sent < due) {
        const m = Buffer.alloc(1024, 0x61);
        m.writeDoubleLE(nowUs(), 0);
        void pub.publish('lat', m);
        sent++;
      }
      if (sent >= rate * seconds) { clearInterval(tick); resolve(); }
    }, 1);
  });
  await Promise.race([done, new Promise((r) => setTimeout(r, 10_000))]);
  for (const s of subs) s.disconnect();
  pub.disconnect();
  return { got, p50: h.getValueAtPercentile(50), p99: h.getValueAtPercentile(99), p999: h.getValueAtPercentile(99.9),
    max: h.maxValue, elapsedMs: (last - first) / 1000, perSec: Math.round(got / Math.max(1e-3, (last - first) / 1e6)) };
}

const row = (name: string, rate: number, r: SubResult & { perSec: number }, expect: number, fan = false) =>
  `${name.padEnd(26)} ${String(rate).padStart(6)} ${String(r.got).padStart(8)}/${String(expect).padEnd(8)}` +
  `${fan ? String(r.perSec).padStart(10) : ''} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.p999).padStart(8)} ${String(r.max).padStart(8)}`;

export async function pubsubBench(database: () => Promise<Db>, seconds: number, rates: number[]): Promise<void> {
  const redisPort = await freePort();
  const redis = spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const db = await database();
  const a = await startPostresp(db);
  const b = await startPostresp(db);
  try {
    await new Promise((r) => setTimeout(r, 300));
    const targets: Target[] = [
      { name: 'redis-server', pub: redisPort, sub: redisPort },
      { name: 'postresp, same instance', pub: a.port, sub: a.port },
      { name: 'postresp, across two', pub: a.port, sub: b.port },
    ];
    console.log(`\nPUBLISH → message through the commands (ioredis, one Node process), 1 KB, ${seconds} s open loop`);
    console.log(`${'target'.padEnd(26)} rate/s delivered/expected  p50 µs  p99 µs  p99.9 µs   max µs`);
    // warm-up, not reported: connections, the instances' interest registration, Postgres plans
    for (const t of targets) await measure(t, 1000, 1, 1);
    for (const rate of rates) {
      for (const t of targets) console.log(row(t.name, rate, await measure(t, rate, seconds, 1), rate * seconds));
    }
    console.log(`\nfan-out: 1 publisher → 100 subscribers, 1 KB, ${seconds} s`);
    console.log(`${'target'.padEnd(26)} msgs/s delivered/expected deliv/s  p50 µs  p99 µs  p99.9 µs   max µs`);
    for (const rate of [1000, 2000]) {
      for (const t of targets) console.log(row(t.name, rate, await measure(t, rate, seconds, 100), rate * seconds * 100, true));
    }
  } finally {
    redis.kill();
    // stopped before the caller stops an embedded Postgres under them
    await Promise.all([a.child, b.child].map((c) => new Promise((r) => { c.once('exit', r); c.kill(); })));
  }
}
