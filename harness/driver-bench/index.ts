// Driver benchmark: our libpq binding (NativePgConnection) vs node-postgres pipeline mode vs
// pg-native, same statements, same Postgres, one command. Each (driver, workload) runs in its own
// child process so process.cpuUsage() measures that driver alone, with a fresh heap and JIT.
//
//   node dist/harness/driver-bench/index.js [--url URL] [--duration 5] [--warmup 1] [--inflight 8]
//        [--batch 16] [--keys 100000] [--value-size 1024] [--drivers a,b] [--workloads select,upsert]
//        [--repeat 1] [--json FILE] [--connections 1]
//
// Driver `lane` runs PostRESP's own GET/SET statements on the real keyspace tables (schema
// driver_bench_kv, unlogged) over --connections connections: the ceiling for PostRESP's lanes.
//
// Without --url or DATABASE_URL it starts the embedded Postgres in a temporary folder.
import { fork } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { NativePgConnection } from '../../core/engine/pg-driver/native-conn';
import { migrate } from '../../core/primary/postgres/migrations';
import { BenchDriver, DriverName, kDriverNames, kLaneSchema, openDriver } from './drivers';

type Workload = 'select' | 'upsert';

interface Options {
  url: string | null;
  duration: number;
  warmup: number;
  inflight: number;
  batch: number;
  keys: number;
  valueSize: number;
  drivers: DriverName[];
  workloads: Workload[];
  repeat: number;
  json: string | null;
  connections: number;
}

interface CaseResult {
  driver: DriverName;
  workload: Workload;
  inFlight: number;
  rows: number;
  statements: number;
  wallMs: number;
  userUs: number;
  systemUs: number;
}

const kDefaults: Options = {
  url: process.env.DATABASE_URL ?? null, duration: 5, warmup: 2, inflight: 8, batch: 16, keys: 100_000,
  valueSize: 1024, drivers: kDriverNames.filter((d) => d !== 'lane'), workloads: ['select', 'upsert'], repeat: 1, json: null,
  connections: 1,
};

function parseArgs(argv: string[]): Options & { case: string | null } {
  const o: Options & { case: string | null } = { ...kDefaults, case: null };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    const num = () => {
      const n = Number(value);
      if (!(n > 0)) throw new Error(`${flag} must be a positive number, got ${value}`);
      return n;
    };
    switch (flag) {
      case '--url': o.url = value; break;
      case '--duration': o.duration = num(); break;
      case '--warmup': o.warmup = Number(value); break;
      case '--inflight': o.inflight = num(); break;
      case '--batch': o.batch = num(); break;
      case '--keys': o.keys = num(); break;
      case '--value-size': o.valueSize = num(); break;
      case '--repeat': o.repeat = num(); break;
      case '--connections': o.connections = num(); break;
      case '--json': o.json = value; break;
      case '--case': o.case = value; break;
      case '--drivers':
        o.drivers = value.split(',') as DriverName[];
        for (const d of o.drivers) if (!kDriverNames.includes(d)) throw new Error(`unknown driver ${d} (${kDriverNames.join(', ')})`);
        break;
      case '--workloads':
        o.workloads = value.split(',') as Workload[];
        for (const w of o.workloads) if (w !== 'select' && w !== 'upsert') throw new Error(`unknown workload ${w}`);
        break;
      default:
        throw new Error(`unknown flag ${flag}`);
    }
  }
  return o;
}

const keyOf = (i: number) => Buffer.from(`key:${String(i).padStart(8, '0')}`);

/** Printable values: node-postgres decodes binary fields as UTF-8 strings and re-encodes them,
 * which would corrupt random bytes (see docs/driver.md). */
function valuePool(size: number, count: number): Buffer[] {
  let seed = 12345;
  return Array.from({ length: count }, () => {
    const b = Buffer.allocUnsafe(size);
    for (let i = 0; i < size; i++) b[i] = 97 + ((seed = (seed * 1103515245 + 12345) >>> 0) % 26);
    return b;
  });
}

async function prepareTable(url: string, o: Options): Promise<string> {
  const conn = await NativePgConnection.connect(url);
  try {
    await conn.query('DROP TABLE IF EXISTS driver_bench');
    // UNLOGGED: the comparison is about client CPU; WAL flushes would only add server time.
    await conn.query('CREATE UNLOGGED TABLE driver_bench (key bytea PRIMARY KEY, value bytea) WITH (fillfactor = 70)');
    const values = valuePool(o.valueSize, 1024);
    const pending: Promise<unknown>[] = [];
    for (let first = 0; first < o.keys; first += 1000) {
      const keys: Buffer[] = [];
      const vals: Buffer[] = [];
      for (let i = first; i < Math.min(first + 1000, o.keys); i++) keys.push(keyOf(i)), vals.push(values[i & 1023]);
      pending.push(conn.query('INSERT INTO driver_bench SELECT * FROM unnest($1::bytea[], $2::bytea[])', [keys, vals]));
    }
    await Promise.all(pending);
    await conn.query('VACUUM ANALYZE driver_bench');
    if (o.drivers.includes('lane')) await prepareKeyspace(url, conn, o, values);
    return (await conn.query('SELECT version()')).text(0, 0)!;
  } finally {
    await conn.close();
  }
}

/** The `lane` driver's keyspace: PostRESP's migrations in their own schema, the same keys. */
async function prepareKeyspace(url: string, conn: NativePgConnection, o: Options, values: Buffer[]): Promise<void> {
  await conn.query(`DROP SCHEMA IF EXISTS ${kLaneSchema} CASCADE`);
  await migrate(url, { schema: kLaneSchema, storageMode: 'unlogged', convertStorageMode: false });
  const pending: Promise<unknown>[] = [];
  for (let first = 0; first < o.keys; first += 1000) {
    const keys: Buffer[] = [];
    const vals: Buffer[] = [];
    for (let i = first; i < Math.min(first + 1000, o.keys); i++) keys.push(keyOf(i)), vals.push(values[i & 1023]);
    pending.push(conn.query(`INSERT INTO ${kLaneSchema}.kv (db, key, type, value, version)
      SELECT 0, k, 0, v, 1 FROM unnest($1::bytea[], $2::bytea[]) AS t(k, v)`, [keys, vals]));
  }
  await Promise.all(pending);
  await conn.query(`VACUUM ANALYZE ${kLaneSchema}.kv`);
}

/** Child process: one driver, one workload, warm-up then the measured window. */
async function runCase(o: Options, driverName: DriverName, workload: Workload): Promise<CaseResult> {
  const driver = await openDriver(driverName, o.url!, o.inflight, o.connections);
  const keys = Array.from({ length: o.keys }, (_, i) => keyOf(i));
  const values = valuePool(o.valueSize, 256);
  let seed = 0x9e3779b9;
  const rand = (n: number) => ((seed ^= seed << 13), (seed ^= seed >>> 17), (seed ^= seed << 5), (seed >>> 0) % n);
  const mark = new Uint32Array(o.keys);
  let generation = 0;
  const pick = (): Buffer[] => {
    const out: Buffer[] = [];
    generation++;
    while (out.length < o.batch) {
      const i = rand(o.keys);
      if (mark[i] === generation) continue; // upsert refuses to touch one row twice per statement
      mark[i] = generation;
      out.push(keys[i]);
    }
    return out;
  };
  const pickValues = () => Array.from({ length: o.batch }, () => values[rand(values.length)]);
  const window = (seconds: number) =>
    new Promise<Omit<CaseResult, 'driver' | 'workload' | 'inFlight'>>((resolve, reject) => {
      let inFlight = 0;
      let rows = 0;
      let statements = 0;
      let failed = false;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const end = t0 + seconds * 1000;
      const done = (err: Error | null, n: number) => {
        inFlight--;
        if (failed) return;
        if (err) return (failed = true), reject(err);
        rows += n;
        statements++;
        if (performance.now() < end) issue();
        else if (inFlight === 0) {
          const cpu = process.cpuUsage(cpu0);
          resolve({ rows, statements, wallMs: performance.now() - t0, userUs: cpu.user, systemUs: cpu.system });
        }
      };
      const issue = () => {
        inFlight++;
        if (workload === 'select') driver.select(pick(), done);
        else driver.upsert(pick(), pickValues(), done);
      };
      for (let i = 0; i < driver.maxInFlight; i++) issue();
    });
  try {
    if (o.warmup > 0) await window(o.warmup);
    return { driver: driverName, workload, inFlight: driver.maxInFlight, ...(await window(o.duration)) };
  } finally {
    await driver.close();
  }
}

function forkCase(o: Options, driver: DriverName, workload: Workload): Promise<CaseResult> {
  const args = ['--case', `${driver}:${workload}`, '--url', o.url!, '--duration', String(o.duration),
    '--warmup', String(o.warmup), '--inflight', String(o.inflight), '--batch', String(o.batch),
    '--keys', String(o.keys), '--value-size', String(o.valueSize), '--connections', String(o.connections)];
  return new Promise((resolve, reject) => {
    const child = fork(__filename, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: CaseResult | undefined;
    child.on('message', (m) => (result = m as CaseResult));
    child.on('error', reject);
    child.on('exit', (code) => (result ? resolve(result) : reject(new Error(`${driver}:${workload} exited with ${code}`))));
  });
}

async function withServer<T>(o: Options, fn: (url: string) => Promise<T>): Promise<T> {
  if (o.url) return fn(o.url);
  const { startEmbeddedPostgres } = await import('../../core/primary/postgres/embedded');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'postresp-driver-bench-'));
  await fs.chmod(dir, 0o755);
  console.log(`no --url or DATABASE_URL: starting the embedded Postgres in ${dir}`);
  const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg') });
  try {
    return await fn(server.localUrl); // the transport PostRESP itself uses on this server
  } finally {
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function report(results: CaseResult[], o: Options): string {
  const lines = ['| workload | driver | in flight | rows/s | statements/s | Node CPU µs/row (user+sys) | user | sys |',
    '|---|---|---:|---:|---:|---:|---:|---:|'];
  for (const workload of o.workloads) {
    for (const driver of o.drivers) {
      const runs = results.filter((r) => r.driver === driver && r.workload === workload);
      if (!runs.length) continue;
      const rate = median(runs.map((r) => (r.rows * 1000) / r.wallMs));
      const stmts = median(runs.map((r) => (r.statements * 1000) / r.wallMs));
      const cpu = median(runs.map((r) => (r.userUs + r.systemUs) / r.rows));
      const user = median(runs.map((r) => r.userUs / r.rows));
      const sys = median(runs.map((r) => r.systemUs / r.rows));
      lines.push(`| ${workload} | ${driver} | ${runs[0].inFlight} | ${Math.round(rate).toLocaleString('en-US')} | ` +
        `${Math.round(stmts).toLocaleString('en-US')} | ${cpu.toFixed(2)} | ${user.toFixed(2)} | ${sys.toFixed(2)} |`);
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  if (o.case) {
    const [driver, workload] = o.case.split(':') as [DriverName, Workload];
    const result = await runCase(o, driver, workload);
    if (process.send) process.send(result);
    else console.log(JSON.stringify(result));
    return;
  }
  await withServer(o, async (url) => {
    o.url = url;
    const version = await prepareTable(url, o);
    console.log(`${version}\n${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}; ` +
      `${o.batch} rows/statement, ${o.valueSize}-byte values, ${o.keys} keys, ${o.duration} s per case (+${o.warmup} s warm-up)\n`);
    const results: CaseResult[] = [];
    for (let rep = 0; rep < o.repeat; rep++) {
      for (const workload of o.workloads) {
        for (const driver of o.drivers) {
          if (workload === 'upsert') {
            const c = await NativePgConnection.connect(url);
            await c.query(driver === 'lane' ? `VACUUM ${kLaneSchema}.kv` : 'VACUUM driver_bench'); // same table state for every driver
            await c.close();
          }
          const r = await forkCase(o, driver, workload);
          results.push(r);
          console.error(`${workload} ${driver}: ${Math.round((r.rows * 1000) / r.wallMs)} rows/s, ` +
            `${((r.userUs + r.systemUs) / r.rows).toFixed(2)} µs CPU/row`);
        }
      }
    }
    console.log(report(results, o));
    if (o.json) await fs.writeFile(o.json, JSON.stringify({ options: o, version, results }, null, 2));
  });
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
