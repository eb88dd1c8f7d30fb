/**
 * `npm run bench:bus -- [transport|latency|fanout|redis|writers|pubsub|all] [--seconds N] [--rates 5000,20000]`
 *   pubsub also: [--rounds N] [--targets redis,worker,cross,two,worker-old,cross-old] [--fanout 0] [--old DIR]; latency: [--across 0]
 * Benchmarks of the message bus (docs/messaging.md, docs/BENCHMARKS.md):
 *
 *   transport  one worker thread to another: through the primary, BroadcastChannel, SAB ring
 *   latency    publish → delivery p50/p99/p99.9, 1 KB, same process across workers and across two
 *              processes through Postgres (LISTEN/NOTIFY), open loop at each rate
 *   fanout     one publisher, 100 subscribers (two workers of the other instance or process)
 *   redis      the same open loop against redis-server (ioredis publisher and subscriber)
 *   pubsub     PUBLISH/SUBSCRIBE through the commands: redis-server, one PostRESP, two PostRESP
 *              instances (./pubsub-bench.ts), latency at each rate and fan-out 1 → 100
 *   writers    what waking blocked clients costs writers: one-row upsert transactions with
 *              nothing / wake() with nobody listening / wake() with another instance waiting /
 *              NOTIFY inside the writer's own transaction
 *
 * Postgres: DATABASE_URL, else an embedded one in a temp folder (stopped at the end).
 */
import { fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as hdr from 'hdr-histogram-js';
import { migrate } from '../../core/primary/postgres/migrations';
import { startupOptions, type StorageMode } from '../../core/primary/postgres/schema';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../core/primary/postgres/embedded';
import { startBusNode, type Role, type SubResult } from './node';
import { transportBench } from './transport-bench';
import { writersBench } from './writers-bench';
import { pubsubBench } from './pubsub-bench';

interface Db { url: string; schema: string; startupOptions: string }

const argv = process.argv.slice(2);
const arg = (name: string, dflt: string) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1]! : dflt; };
const seconds = Number(arg('seconds', '5'));
const rates = arg('rates', '5000,20000').split(',').map(Number);
const fmt = (r: SubResult, expect: number) =>
  `${String(r.got).padStart(8)}/${String(expect).padEnd(8)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.p999).padStart(8)} ${String(r.max).padStart(8)}`;
const kHead = 'delivered/expected  p50 µs  p99 µs  p99.9 µs   max µs';

let embedded: EmbeddedPostgres | undefined;
let tmp: string | undefined;
async function database(mode: StorageMode = 'unlogged'): Promise<Db> {
  let url = process.env.DATABASE_URL;
  if (!url) {
    if (!embedded) {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'postresp-bus-bench-'));
      embedded = await startEmbeddedPostgres({ dataDir: path.join(tmp, 'pg') });
    }
    url = embedded.url;
  }
  const schema = `bus_bench_${process.pid}_${mode.replace('-', '_')}`;
  await migrate(url, { schema, storageMode: mode, convertStorageMode: false });
  return { url, schema, startupOptions: startupOptions(mode, schema) };
}

/** A subscriber bus node in a child process (another "instance"); resolves once subscribed. */
function childSubscriber(db: Db, role: Role): Promise<{ result: Promise<SubResult[]>; start(): void; stop(): void }> {
  const child = fork(__filename, ['child', JSON.stringify({ db, role })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', () => resolve({
      result: new Promise((r) => child.once('message', (m) => r(m as SubResult[]))),
      start: () => child.send('start'),
      stop: () => child.kill(),
    }));
  });
}

async function childMain(spec: { db: Db; role: Role }): Promise<void> {
  const node = await startBusNode([spec.role, { kind: 'idle' }], spec.db);
  await node.ready;
  process.send!('ready');
  process.once('message', async () => {
    const results = await node.run();
    process.send!(results, () => void node.close().then(() => process.exit(0)));
  });
}

async function latency(): Promise<void> {
  console.log(`\npublish → delivery, 1 KB messages, ${seconds} s open loop per rate`);
  console.log(`path                         rate/s  ${kHead}`);
  for (const rate of rates) {
    const expect = rate * seconds;
    const node = await startBusNode([{ kind: 'pub', channel: 'lat', rate, seconds, size: 1024 },
      { kind: 'sub', channel: 'lat', subscribers: 1, expect, timeoutMs: seconds * 1000 + 5000 }]);
    await node.ready;
    const cpu0 = process.cpuUsage();
    const [r] = await node.run();
    const cpu = process.cpuUsage(cpu0);
    await node.close();
    // CPU of the whole process (publisher and subscriber threads, the hub) per message
    console.log(`same process, across workers ${String(rate).padStart(6)}  ${fmt(r!, expect)}  ${((cpu.user + cpu.system) / expect).toFixed(1)} CPU µs/msg`);
  }
  if (arg('across', '1') === '0') return; // --across 0: the same-process rows alone
  const db = await database();
  for (const rate of rates) {
    const expect = rate * seconds;
    const child = await childSubscriber(db, { kind: 'sub', channel: 'lat', subscribers: 1, expect, timeoutMs: seconds * 1000 + 5000 });
    const node = await startBusNode([{ kind: 'pub', channel: 'lat', rate, seconds, size: 1024 }, { kind: 'idle' }], db);
    await node.ready;
    child.start();
    await node.run();
    const [r] = await child.result;
    const tx = node.link!.stats.transactions;
    const notes = node.link!.stats.notifications;
    await node.close();
    child.stop();
    console.log(`two processes, via Postgres  ${String(rate).padStart(6)}  ${fmt(r!, expect)}   (${tx} transactions, ${notes} notifications)`);
  }
}

async function fanout(): Promise<void> {
  const subs = 50; // per worker, two workers: 100 subscribers
  console.log(`\nfan-out: 1 publisher → 100 subscribers (50 in each of two workers), 1 KB, ${seconds} s`);
  console.log(`path                        msgs/s deliveries/s  ${kHead}`);
  for (const rate of [1000, 2000, 5000]) {
    const expect = rate * seconds * subs;
    const sub: Role = { kind: 'sub', channel: 'fan', subscribers: subs, expect, timeoutMs: seconds * 1000 + 10_000 };
    const node = await startBusNode([{ kind: 'pub', channel: 'fan', rate, seconds, size: 1024 }, sub, sub]);
    await node.ready;
    const rs = await node.run();
    await node.close();
    const got = rs.reduce((a, r) => a + r.got, 0);
    const secs = Math.max(...rs.map((r) => r.elapsedMs)) / 1000;
    console.log(`same process, across workers ${String(rate).padStart(5)} ${String(Math.round(got / secs)).padStart(12)}  ${fmt(worst(rs), expect * 2)}`);
  }
  const db = await database();
  for (const rate of [1000, 2000, 5000]) {
    const expect = rate * seconds * subs;
    const child = await childSubscriber(db, { kind: 'sub', channel: 'fan', subscribers: subs * 2, expect: expect * 2, timeoutMs: seconds * 1000 + 10_000 });
    const node = await startBusNode([{ kind: 'pub', channel: 'fan', rate, seconds, size: 1024 }], db);
    await node.ready;
    child.start();
    await node.run();
    const [r] = await child.result;
    await node.close();
    child.stop();
    console.log(`two processes, via Postgres  ${String(rate).padStart(5)} ${String(Math.round(r!.got / (r!.elapsedMs / 1000))).padStart(12)}  ${fmt(r!, expect * 2)}`);
  }
}

function worst(rs: SubResult[]): SubResult {
  return rs.reduce((a, r) => (r.p99 > a.p99 ? { ...r, got: a.got + r.got } : { ...a, got: a.got + r.got }), { ...rs[0]!, got: 0 });
}

/** The same open loop against redis-server, as a Node client sees it (the reference). */
async function redis(): Promise<void> {
  const port = await freePort();
  const server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  try {
    const { default: Redis } = await import('ioredis');
    await new Promise((r) => setTimeout(r, 300));
    console.log(`\nredis-server 7 (ioredis), PUBLISH → message, 1 KB, ${seconds} s open loop`);
    console.log(`path                         rate/s  ${kHead}`);
    for (const rate of rates) {
      const sub = new Redis(port, { lazyConnect: false });
      const pub = new Redis(port);
      const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });
      const expect = rate * seconds;
      let got = 0;
      const done = new Promise<void>((resolve) => sub.on('messageBuffer', (_c: Buffer, m: Buffer) => {
        h.recordValue(Math.max(1, Math.round(Number(process.hrtime.bigint()) / 1000 - m.readDoubleLE(0))));
        if (++got === expect) resolve();
      }));
      await sub.subscribe('lat');
      const t0 = Number(process.hrtime.bigint()) / 1000;
      let sent = 0;
      await new Promise<void>((resolve) => {
        const tick = setInterval(() => {
          const due = Math.min(expect, Math.floor(((Number(process.hrtime.bigint()) / 1000 - t0) / 1e6) * rate));
          while (sent < due) {
            const m = Buffer.alloc(1024, 0x61);
            m.writeDoubleLE(Number(process.hrtime.bigint()) / 1000, 0);
            void pub.publish('lat', m);
            sent++;
          }
          if (sent >= expect) { clearInterval(tick); resolve(); }
        }, 1);
      });
      await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
      console.log(`redis-server, one Node process${String(rate).padStart(6)}  ${fmt({ got, p50: h.getValueAtPercentile(50), p99: h.getValueAtPercentile(99), p999: h.getValueAtPercentile(99.9), max: h.maxValue, elapsedMs: 0 }, expect)}`);
      sub.disconnect();
      pub.disconnect();
    }
  } finally {
    server.kill();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

async function main(): Promise<void> {
  if (argv[0] === 'child') return childMain(JSON.parse(argv[1]!));
  const what = argv[0] && !argv[0].startsWith('--') ? argv[0] : 'all';
  console.log(`bus benchmarks on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  try {
    if (what === 'transport' || what === 'all') await transportBench(argv);
    if (what === 'latency' || what === 'all') await latency();
    if (what === 'redis' || what === 'all') await redis();
    if (what === 'fanout' || what === 'all') await fanout();
    if (what === 'writers' || what === 'all') await writersBench(database, seconds, argv);
    if (what === 'pubsub' || what === 'all') await pubsubBench(database, seconds, rates, {
      rounds: Number(arg('rounds', '1')), targets: arg('targets', 'redis,cross,two').split(','), fanout: arg('fanout', '1') !== '0',
      pgPid: () => embedded?.pid, old: argv.includes('--old') ? arg('old', '') : undefined,
    });
  } finally {
    await embedded?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().then(() => { if (argv[0] !== 'child') process.exit(0); }, (e) => { console.error(e); process.exit(1); });
}
