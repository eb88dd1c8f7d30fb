/**
 * What waking blocked clients across instances costs writers (`npm run bench:bus -- writers`).
 * Four writer connections in closed loops, each transaction one upsert of a 100-byte value into
 * kv on one of 100 keys, for `seconds` per variant, variants alternated over `--rounds`:
 *
 *   plain          the upsert alone
 *   wake, nobody   + bus.wake(db, key) after each commit; another instance is up, nobody waits
 *   wake, waiting  + the same, while the other instance has a client blocked on every key: the
 *                  wake-ups go out as notifications from the bus's own connection, batched
 *   NOTIFY in tx   the naive design: pg_notify in the writer's own transaction, which takes the
 *                  cluster-wide notify lock at commit and holds it through the commit's WAL flush
 *
 * Plus the cost of one wake() call in a tight loop with and without blocked clients elsewhere.
 */
import { NativePgConnection } from '../../core/engine/pg-driver/native-conn';
import type { StorageMode } from '../../core/primary/postgres/schema';
import { inThreadBus, type InThreadBus } from '../../core/bus/in-thread';

interface Db { url: string; schema: string; startupOptions: string }
type Variant = 'plain' | 'wake, nobody' | 'wake, waiting' | 'NOTIFY in tx';
const kVariants: Variant[] = ['plain', 'wake, nobody', 'wake, waiting', 'NOTIFY in tx'];
const kKeys = Array.from({ length: 100 }, (_, i) => Buffer.from(`wkey:${i}`));
const kWriters = 4;

async function runVariant(db: Db, variant: Variant, seconds: number, A: InThreadBus, B: InThreadBus): Promise<{ tps: number; cpuUs: number; notes: number; tx: number }> {
  const conns = await Promise.all(Array.from({ length: kWriters }, () =>
    NativePgConnection.connect(db.url, { libpq: { options: db.startupOptions, application_name: 'bus-bench-writer' } })));
  const waiter = () => undefined;
  if (variant === 'wake, waiting') await Promise.all(kKeys.map((k) => B.buses[0]!.waitKey(0, k, waiter)));
  const value = Buffer.alloc(100, 0x62);
  const bus = A.buses[0]!;
  const link = A.link!;
  const notes0 = link.stats.notifications;
  const tx0 = link.stats.transactions;
  let commits = 0;
  let stop = false;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(conns.map((c, w) => new Promise<void>((resolve) => {
    let i = w;
    const next = () => {
      if (stop) return resolve();
      const key = kKeys[(i = (i * 31 + 7) % kKeys.length)]!;
      c.send('INSERT INTO kv (db, key, value) VALUES (0, $1, $2) ON CONFLICT (db, key) DO UPDATE SET value = excluded.value', [key, value], () => undefined);
      if (variant === 'NOTIFY in tx') c.send('SELECT pg_notify($1, $2)', [link.channel, `bench ${w} ${commits}`], () => undefined);
      c.sync((err) => {
        if (err) throw err;
        commits++;
        if (variant === 'wake, nobody' || variant === 'wake, waiting') bus.wake(0, key);
        next();
      });
    };
    next();
  })).concat([new Promise<void>((r) => setTimeout(() => { stop = true; r(); }, seconds * 1000))]));
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await new Promise((r) => setTimeout(r, 200)); // the last wake-ups' transactions
  if (variant === 'wake, waiting') for (const k of kKeys) B.buses[0]!.unwaitKey(0, k, waiter);
  await Promise.all(conns.map((c) => c.close()));
  return { tps: commits / elapsed, cpuUs: (cpu.user + cpu.system) / commits, notes: link.stats.notifications - notes0, tx: link.stats.transactions - tx0 };
}

function wakeCost(A: InThreadBus, n: number): number {
  const bus = A.buses[0]!;
  const key = Buffer.from('wkey:none');
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) bus.wake(0, key);
  return Number(process.hrtime.bigint() - t0) / n;
}

export async function writersBench(database: (mode: StorageMode) => Promise<Db>, seconds: number, argv: string[]): Promise<void> {
  const rounds = Number(argv[argv.indexOf('--rounds') + 1] ?? 2) || 2;
  for (const mode of ['logged', 'unlogged'] as StorageMode[]) {
    const db = await database(mode);
    const link = { url: db.url, schema: db.schema, startupOptions: db.startupOptions, healthMs: 60_000 };
    // keyLingerMs 0: a variant's blocked keys are gone for the next one
    const A = await inThreadBus(2, { link, hub: { keyLingerMs: 0 } });
    const B = await inThreadBus(1, { link, hub: { keyLingerMs: 0 } });
    console.log(`\nwriters (${kWriters} connections, one-row upsert transactions, storage mode ${mode}, ${seconds} s each, ${rounds} rounds)`);
    console.log('variant          commits/s  Node CPU µs/commit  bus notifications  bus transactions');
    const all = new Map<Variant, number[]>();
    for (let r = 0; r < rounds; r++) {
      for (const v of kVariants) {
        const res = await runVariant(db, v, seconds, A, B);
        (all.get(v) ?? all.set(v, []).get(v)!).push(res.tps);
        console.log(`${v.padEnd(15)} ${res.tps.toFixed(0).padStart(10)} ${res.cpuUs.toFixed(1).padStart(19)} ${String(res.notes).padStart(18)} ${String(res.tx).padStart(17)}`);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const base = median(all.get('plain')!);
    console.log(`medians relative to plain: ${kVariants.map((v) => `${v} ${(median(all.get(v)!) / base).toFixed(3)}×`).join(', ')}`);
    if (mode === 'logged') {
      const idle = wakeCost(A, 5_000_000);
      await A.buses[1]!.waitKey(0, Buffer.from('elsewhere'), () => undefined);
      const busy = wakeCost(A, 2_000_000);
      console.log(`wake() per call: ${idle.toFixed(1)} ns with no blocked client anywhere, ${busy.toFixed(1)} ns with one blocked on another key`);
    }
    await A.close();
    await B.close();
  }
}
