// Command-line options of the load harness: valkey-benchmark's flags with its defaults, plus the
// open-loop, mixed-workload, report and SLO flags PostRESP adds. Parsed and validated once.

import { cpus } from 'node:os';
import { parseSlo, type SloObjective } from './slo';

export type KeyPattern = 'uniform' | 'zipf' | 'gaussian' | 'sequential';
export const kKeyPatterns: readonly KeyPattern[] = ['uniform', 'zipf', 'gaussian', 'sequential'];
export const kStorageModes = ['unlogged', 'logged-async', 'logged'] as const;

export interface Ratio {
  set: number;
  get: number;
}

export interface HarnessOptions {
  host: string;
  port: number;
  socket: string | null;
  password: string | null;
  user: string | null;
  clients: number;
  requests: number;
  /** Seconds; 0 = stop after `requests` (valkey: -n and --duration are mutually exclusive). */
  duration: number;
  warmup: number;
  dataSize: number;
  dataSizeRange: [number, number] | null;
  pipeline: number;
  /** -r: placeholders are replaced only when given (valkey's replace_placeholders). */
  randomKeys: boolean;
  keyspace: number;
  keyPattern: KeyPattern;
  /** zipf's exponent s (--key-distribution zipf:<s>) */
  keyExponent: number;
  tests: string[] | null;
  ratio: Ratio | null;
  quiet: boolean;
  csv: boolean;
  loop: boolean;
  keepalive: number;
  /** 0 = auto: enough worker threads for the clients, at most the core count. */
  threads: number;
  seed: number | null;
  precision: number;
  dbnum: number;
  resp3: boolean;
  /** Target requests/s of the open loop; 0 = closed loop. */
  rps: number;
  /** Open loop: sleep slices (µs) between due sends instead of spinning; 0 = spin. */
  napUs: number;
  slo: SloObjective[];
  json: string | null;
  html: string | null;
  hdr: string | null;
  autostart: boolean;
  storageMode: string | null;
  dataDir: string | null;
  pgUrl: string | null;
  /** A command given after the options (valkey: `valkey-benchmark [OPTIONS] [--] [COMMAND ARGS...]`). */
  command: string[];
  help: boolean;
}

/** valkey-benchmark's defaults (src/valkey-benchmark.c main()), then ours. */
export const kDefaults: Readonly<HarnessOptions> = Object.freeze({
  host: '127.0.0.1',
  port: 6379,
  socket: null,
  password: null,
  user: null,
  clients: 50,
  requests: 100000,
  duration: 0,
  warmup: 0,
  dataSize: 3,
  dataSizeRange: null,
  pipeline: 1,
  randomKeys: false,
  keyspace: 0,
  keyPattern: 'uniform',
  keyExponent: 0.99,
  tests: null,
  ratio: null,
  quiet: false,
  csv: false,
  loop: false,
  keepalive: 1,
  threads: 0,
  seed: null,
  precision: 3,
  dbnum: 0,
  resp3: false,
  rps: 0,
  napUs: 0,
  slo: [],
  json: null,
  html: null,
  hdr: null,
  autostart: true,
  storageMode: null,
  dataDir: null,
  pgUrl: null,
  command: [],
  help: false,
} satisfies HarnessOptions);

export class OptionsError extends Error {
  readonly code = 'POSTRESP_ERR_HARNESS_OPTION';
}

const kMaxThreads = 500; // valkey's MAX_THREADS

function int(flag: string, raw: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (raw === undefined) throw new OptionsError(`Invalid option "${flag}" or option argument missing`);
  if (!/^-?\d+$/.test(raw)) throw new OptionsError(`${flag} expects an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new OptionsError(`${flag} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function num(flag: string, raw: string | undefined, min: number): number {
  if (raw === undefined) throw new OptionsError(`Invalid option "${flag}" or option argument missing`);
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min) throw new OptionsError(`${flag} expects a number >= ${min}, got "${raw}"`);
  return n;
}

function str(flag: string, raw: string | undefined): string {
  if (raw === undefined) throw new OptionsError(`Invalid option "${flag}" or option argument missing`);
  return raw;
}

export function parseRatio(raw: string): Ratio {
  const m = /^(\d+):(\d+)$/.exec(raw.trim());
  if (!m) throw new OptionsError(`--ratio expects set:get like 1:10, got "${raw}"`);
  const ratio = { set: Number(m[1]), get: Number(m[2]) };
  if (ratio.set + ratio.get === 0) throw new OptionsError('--ratio needs at least one non-zero side');
  return ratio;
}

export function parseSizeRange(raw: string): [number, number] {
  const m = /^(\d+)-(\d+)$/.exec(raw.trim());
  if (!m) throw new OptionsError(`--data-size-range expects min-max like 16-4096, got "${raw}"`);
  const min = Number(m[1]);
  const max = Number(m[2]);
  if (min < 1 || max < min || max > 512 * 1024 * 1024) throw new OptionsError(`--data-size-range needs 1 <= min <= max <= 512 MiB, got "${raw}"`);
  return [min, max];
}

/** Parses argv (without node and script) into validated options. Throws OptionsError. */
export function parseArgs(argv: readonly string[]): HarnessOptions {
  const o: HarnessOptions = { ...kDefaults, slo: [], command: [] };
  let requestsGiven = false;
  let i = 0;
  for (; i < argv.length; i++) {
    const flag = argv[i];
    const next = (): string | undefined => argv[++i];
    switch (flag) {
      case '-h': o.host = str(flag, next()); break;
      case '-p': o.port = int(flag, next(), 0, 65535); break;
      case '-s': o.socket = str(flag, next()); break;
      case '-a': o.password = str(flag, next()); break;
      case '--user': o.user = str(flag, next()); break;
      case '-c': o.clients = int(flag, next(), 1, 100000); break;
      case '-n':
        if (o.duration > 0) throw new OptionsError('Options -n and --duration are mutually exclusive.');
        o.requests = int(flag, next(), 1, 2 ** 31 - 1);
        requestsGiven = true;
        break;
      case '--duration':
        if (requestsGiven) throw new OptionsError('Options -n and --duration are mutually exclusive.');
        o.duration = num(flag, next(), 0);
        break;
      case '--warmup': o.warmup = num(flag, next(), 0); break;
      // valkey clamps -d to 1..1 GiB and -P to >= 1 instead of refusing; so do we.
      case '-d': o.dataSize = Math.min(Math.max(int(flag, next(), -(2 ** 31)), 1), 1024 * 1024 * 1024); break;
      case '--data-size-range': o.dataSizeRange = parseSizeRange(str(flag, next())); break;
      case '-P': o.pipeline = Math.max(int(flag, next(), -(2 ** 31)), 1); break;
      case '-r': o.randomKeys = true; o.keyspace = Math.max(int(flag, next(), -(2 ** 31), 1e12), 0); break;
      case '--key-pattern': {
        const v = str(flag, next()) as KeyPattern;
        if (!kKeyPatterns.includes(v)) throw new OptionsError(`--key-pattern must be one of ${kKeyPatterns.join('|')}, got "${v}"`);
        o.keyPattern = v;
        break;
      }
      case '--key-distribution': {
        // <pattern>[:<s>]: the pattern as --key-pattern, and for zipf its exponent (the cache's skewed workload: zipf:0.99)
        const [name, s, ...rest] = str(flag, next()).split(':');
        const v = name as KeyPattern;
        if (!kKeyPatterns.includes(v) || rest.length > 0) throw new OptionsError(`--key-distribution must be one of ${kKeyPatterns.join('|')}, zipf:<s>; got "${name}"`);
        if (s !== undefined) {
          const e = Number(s);
          if (v !== 'zipf' || s === '' || !Number.isFinite(e) || e <= 0 || e > 10) throw new OptionsError(`--key-distribution zipf:<s> needs 0 < s <= 10, got "${name}:${s}"`);
          o.keyExponent = e;
        }
        o.keyPattern = v;
        break;
      }
      case '--sequential': o.keyPattern = 'sequential'; break;
      case '-t': o.tests = str(flag, next()).toLowerCase().split(',').map((t) => t.trim()).filter((t) => t !== ''); break;
      case '--ratio': o.ratio = parseRatio(str(flag, next())); break;
      case '-q': o.quiet = true; break;
      case '--csv': o.csv = true; break;
      case '-l': o.loop = true; break;
      case '-k':
        o.keepalive = int(flag, next(), 0, 1);
        if (o.keepalive === 0) throw new OptionsError('-k 0 (reconnect per request) is not supported by this harness');
        break;
      case '--threads': o.threads = Math.min(int(flag, next(), 0), kMaxThreads); break;
      case '--seed': o.seed = int(flag, next(), -(2 ** 31), 2 ** 32); break;
      case '--precision': o.precision = Math.min(Math.max(int(flag, next(), 0), 1), 5); break;
      case '--dbnum': o.dbnum = int(flag, next(), 0, 2 ** 31 - 1); break;
      case '-3': o.resp3 = true; break;
      case '--rps': o.rps = num(flag, next(), 0); break;
      case '--nap': o.napUs = int(flag, next(), 0, 1000); break;
      case '--slo': o.slo = parseSlo(str(flag, next())); break;
      case '--json': o.json = str(flag, next()); break;
      case '--html': o.html = str(flag, next()); break;
      case '--hdr': o.hdr = str(flag, next()); break;
      case '--no-autostart': o.autostart = false; break;
      case '--storage-mode': {
        const v = str(flag, next());
        if (!(kStorageModes as readonly string[]).includes(v)) throw new OptionsError(`--storage-mode must be one of ${kStorageModes.join('|')}, got "${v}"`);
        o.storageMode = v;
        break;
      }
      case '--data-dir': o.dataDir = str(flag, next()); break;
      case '--pg-url': o.pgUrl = str(flag, next()); break;
      case '--help': o.help = true; break;
      case '--':
        o.command = argv.slice(i + 1);
        i = argv.length;
        break;
      default:
        if (flag.startsWith('-')) throw new OptionsError(`Invalid option "${flag}" or option argument missing`);
        o.command = argv.slice(i);
        i = argv.length;
    }
  }
  if (o.rps > 0 && o.rps < 1) throw new OptionsError('--rps must be >= 1 (or 0 for the closed loop)');
  if (o.user !== null && o.password === null) throw new OptionsError('--user needs -a');
  return o;
}

/** Worker threads to use: --threads, else one per 25 clients, at most the core count. */
export function threadCount(o: HarnessOptions, cores = cpus().length): number {
  const wanted = o.threads > 0 ? o.threads : Math.min(Math.max(cores, 1), Math.ceil(o.clients / 25));
  return Math.max(1, Math.min(wanted, o.clients));
}

export const kUsage = `Usage: npm run harness -- [OPTIONS] [--] [COMMAND ARGS...]

valkey-benchmark's options and defaults:
 -h <hostname>      Server hostname (default 127.0.0.1)
 -p <port>          Server port (default 6379)
 -s <socket>        Server socket (overrides host and port)
 -a <password>      Password for AUTH
 --user <username>  Send ACL style 'AUTH username pass'. Needs -a.
 -c <clients>       Number of parallel connections (default 50)
 -n <requests>      Total number of requests (default 100000)
 -d <size>          Data size of SET/GET value in bytes (default 3)
 --dbnum <db>       SELECT the specified db number (default 0)
 -3                 Start session in RESP3 protocol mode (HELLO 3)
 --threads <num>    Worker threads (default: one per 25 clients, at most the core count)
 -k <boolean>       1=keep alive (default 1; 0 is not supported)
 -r <keyspacelen>   Replace __rand_int__ in keys with a random 12-digit number < keyspacelen
 --sequential       Same as --key-pattern sequential
 -P <numreq>        Pipeline <numreq> requests (default 1)
 -q                 Quiet. Just show query/sec values
 --precision <n>    Significant digits of the latency histograms (default 3)
 --csv              Output in CSV format
 -l                 Loop. Run the tests forever
 -t <tests>         Only run the comma separated list of tests: ping_inline, ping_mbulk, set,
                    get, incr, lpush, rpush, lpop, rpop, sadd, hset, spop, zadd, zpopmin,
                    lrange_100, lrange_300, lrange_500, lrange_600, mset (also: ping, lrange,
                    mget, xadd)
 --seed <num>       Seed of the key/value random generators (default: time based)

PostRESP additions:
 --duration <sec>   Run each test for this many seconds (mutually exclusive with -n)
 --warmup <sec>     Run this long before recording (not counted, not recorded)
 --rps <n>          Open loop: send n requests/s on a fixed schedule whatever the replies;
                    latency counts from each request's intended start (no coordinated omission)
 --nap <us>         Open loop: sleep up to this many µs between due sends instead of spinning
                    (default 0: spin; frees a core, adds up to one nap to latencies)
 --ratio <s:g>      Mixed SET/GET workload as one test, e.g. --ratio 1:10 ("SET:GET 1:10")
 --key-pattern <p>  uniform (default), zipf (s=0.99), gaussian, sequential (needs -r)
 --key-distribution <p>[:<s>]  Same as --key-pattern; zipf:<s> sets the exponent (zipf:0.99)
 --data-size-range <min-max>  Random value sizes per request, e.g. 16-4096
 --slo <list>       Objectives, e.g. "p50<1ms,p99<5ms,p999<20ms" (units us, ms, s; also
                    avg, max, rps>N). Prints PASS/FAIL each; exit status 1 if any missed
 --json <file>      Write results as JSON
 --html <file>      Write a self-contained HTML report (percentile curve, throughput)
 --hdr <file>       Write an HdrHistogram log (one interval histogram per test)
 --no-autostart     Never start PostRESP when nothing answers at the target
 --storage-mode <m> Auto-started PostRESP: unlogged | logged-async | logged
 --data-dir <dir>   Auto-started PostRESP: embedded Postgres data folder
 --pg-url <url>     Auto-started PostRESP: use this Postgres instead of the embedded one
 --help             Output this help and exit

Examples:
 npm run harness -- -t set,get -r 100000 -d 1024 -P 16 -n 1000000 -q
 npm run harness -- --rps 20000 --duration 30 --warmup 5 -t get -r 100000 --slo "p99<2ms,p999<10ms"
 npm run harness -- --ratio 1:10 -r 100000 --key-pattern zipf --html report.html
`;
