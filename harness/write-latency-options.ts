// Flags of `npm run bench:write-latency`: the fixed write rate, its duration and connections, which
// durability pairings and servers to run, and the latency objective whose highest sustained rate
// is searched for (--slo). Parsed and validated once; bad flags are an OptionsError.

import { OptionsError } from './options';
import { parseSlo, type SloObjective } from './slo';

export type Durability = 'durable' | 'volatile';
export const kDurabilities: readonly Durability[] = ['durable', 'volatile'];

export interface WriteLatencyOptions {
  /** Requests/s of the fixed-rate run, and the first rate the --slo search tries. */
  rps: number;
  /** Seconds recorded per run (after the warm-up). */
  duration: number;
  warmup: number;
  connections: number;
  dataSize: number;
  keyspace: number;
  /** Load worker threads; 0 = the harness's default (one per 25 connections, at most the cores). */
  threads: number;
  /** The harness's --nap (µs): sleep between due sends instead of spinning a core per load thread. */
  napUs: number;
  durabilities: Durability[];
  only: 'all' | 'postresp' | 'redis';
  /** A single latency objective (p50|p95|p99|p999 < N ms|us), or null: just the fixed rate. */
  slo: SloObjective | null;
  /** Seconds recorded per step of the --slo search. */
  stepDuration: number;
  maxSteps: number;
  /** The search stops when the bracket between passing and failing rates is this narrow (fraction). */
  resolution: number;
  pgUrl: string | null;
  schema: string | null;
  help: boolean;
}

export const kWriteLatencyDefaults: Readonly<WriteLatencyOptions> = Object.freeze({
  rps: 2000,
  duration: 10,
  warmup: 1,
  connections: 50,
  dataSize: 1024,
  keyspace: 100000,
  threads: 0,
  napUs: 30,
  durabilities: [...kDurabilities],
  only: 'all',
  slo: null,
  stepDuration: 4,
  maxSteps: 10,
  resolution: 0.1,
  pgUrl: null,
  schema: null,
  help: false,
} satisfies WriteLatencyOptions);

const kSloForm = /^p(50|95|99|999)\s*<\s*(\d+(?:\.\d+)?)\s*(ms|us)$/;

/** "p99<5ms" → one objective; only p50|p95|p99|p999, only `<`, only ms|us (what the search holds). */
export function parseWriteSlo(raw: string): SloObjective {
  const text = raw.trim();
  const m = kSloForm.exec(text);
  if (m === null) throw new OptionsError(`--slo expects p50|p95|p99|p999 < a number with ms or us, e.g. p99<5ms, got "${raw}"`);
  if (Number(m[2]) <= 0) throw new OptionsError(`--slo bound must be above 0, got "${raw}"`);
  return parseSlo(text)[0];
}

function value(argv: readonly string[], i: number): string {
  const v = argv[i + 1];
  if (v === undefined || v.startsWith('--')) throw new OptionsError(`${argv[i]} needs a value`);
  return v;
}

function number(flag: string, raw: string, min: number, integer: boolean): number {
  const n = Number(raw);
  const shape = integer ? /^\d+$/ : /^\d+(\.\d+)?$/;
  if (!shape.test(raw) || !Number.isFinite(n) || n < min) {
    throw new OptionsError(`${flag} expects ${integer ? 'an integer' : 'a number'} >= ${min}, got "${raw}"`);
  }
  return n;
}

export function parseWriteLatencyArgs(argv: readonly string[]): WriteLatencyOptions {
  const o: WriteLatencyOptions = { ...kWriteLatencyDefaults, durabilities: [...kDurabilities] };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--help' || flag === '-h') {
      o.help = true;
      continue;
    }
    const raw = value(argv, i);
    i++;
    switch (flag) {
      case '--rps': o.rps = number(flag, raw, 1, false); break;
      case '--duration': o.duration = number(flag, raw, 0.1, false); break;
      case '--warmup': o.warmup = number(flag, raw, 0, false); break;
      case '-c': case '--connections': o.connections = number(flag, raw, 1, true); break;
      case '-d': case '--data-size': o.dataSize = number(flag, raw, 1, true); break;
      case '-r': case '--keyspace': o.keyspace = number(flag, raw, 1, true); break;
      case '--threads': o.threads = number(flag, raw, 0, true); break;
      case '--nap':
        o.napUs = number(flag, raw, 0, true);
        if (o.napUs > 1000) throw new OptionsError(`--nap must be at most 1000 µs, got ${o.napUs}`);
        break;
      case '--slo': o.slo = parseWriteSlo(raw); break;
      case '--step-duration': o.stepDuration = number(flag, raw, 0.1, false); break;
      case '--max-steps': o.maxSteps = number(flag, raw, 1, true); break;
      case '--pairings': {
        const list = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
        for (const d of list) {
          if (!(kDurabilities as readonly string[]).includes(d)) throw new OptionsError(`--pairings takes durable, volatile or both (comma-separated), got "${d}"`);
        }
        if (list.length === 0) throw new OptionsError('--pairings needs durable, volatile or both');
        o.durabilities = kDurabilities.filter((d) => list.includes(d));
        break;
      }
      case '--only':
        if (raw !== 'postresp' && raw !== 'redis' && raw !== 'all') throw new OptionsError(`--only takes postresp, redis or all, got "${raw}"`);
        o.only = raw;
        break;
      case '--pg-url': o.pgUrl = raw; break;
      case '--schema': o.schema = raw; break;
      default: throw new OptionsError(`unknown option "${flag}"`);
    }
  }
  if (o.connections > o.rps) throw new OptionsError(`--connections (${o.connections}) must not exceed --rps (${o.rps}): each connection sends at least 1 request/s`);
  if (o.dataSize > 512 * 1024 * 1024) throw new OptionsError('--data-size must be at most 512 MiB');
  return o;
}

export const kWriteLatencyUsage = `Usage: npm run bench:write-latency -- [OPTIONS]

Open-loop 1 KiB SETs at a fixed rate against fresh servers, four pairings:
PostRESP --storage-mode logged ↔ redis-server --appendonly yes --appendfsync always (durable),
PostRESP --storage-mode unlogged ↔ redis-server --save '' --appendonly no (volatile).
Latency counts from each request's intended send time (coordinated omission corrected).

 --rps <n>            Requests per second in total (default 2000; with --slo the first rate tried)
 --duration <sec>     Seconds recorded at the fixed rate (default 10)
 --warmup <sec>       Seconds sent first and not recorded, each run and step (default 1)
 -c, --connections <n>  Connections (default 50)
 -d, --data-size <b>  Value size in bytes (default 1024)
 -r, --keyspace <n>   Random keys below n (default 100000)
 --threads <n>        Load worker threads (default: one per 25 connections, at most the cores)
 --nap <us>           Sleep up to this many µs between due sends instead of spinning (default 30;
                      0 spins: sends and replies a few µs sooner, but a core per load thread busy)
 --slo <objective>    p50|p95|p99|p999 < N ms|us, e.g. "p99<5ms": instead of one fixed rate, step
                      the rate (double until it fails, then bisect) to the highest rate each server
                      holds with the objective met and >= 99% of the asked rate achieved
 --step-duration <s>  Seconds recorded per step of the search (default 4)
 --max-steps <n>      Steps per server at most (default 10)
 --pairings <list>    durable, volatile or durable,volatile (default both)
 --only <side>        postresp, redis or all (default all)
 --pg-url <url>       PostRESP on this Postgres instead of a fresh embedded one per mode
 --schema <name>      PostRESP's schema (with --pg-url; default a fresh one per run)
 --help               Output this help and exit
`;
