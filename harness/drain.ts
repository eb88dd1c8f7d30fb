// `npm run bench:drain`: fills one collection with -n elements, then pops it empty, one element
// per command, and reports the pop rate of the first and the last 10% (and every decile in
// --json). A pop must cost the same on a full structure and a nearly drained one: on 44f43eb
// RPOP fell from 5k/s to under 300/s within 30k pops of a 100k list (docs/BENCHMARKS.md
// "Draining a collection"). Each drain gets its own key, filled in 1000-element commands.
//
//   npm run bench:drain -- [-h host -p port] [-n 100000] [-c 4] [-P 16] [-d 1024]
//                          [-t lpop,rpop,lmpop,lmove,zpopmin,zpopmax,spop] [--timeout 300]
//                          [--storage-mode unlogged] [--data-dir DIR] [--json FILE]
//
// Without -p it starts PostRESP itself (embedded Postgres, --storage-mode, default unlogged: the
// rate then measures Postgres's work per pop, not a WAL flush per pop) and stops it afterwards.

import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { decode, RespErrorValue, request, type RespValue } from './resp-client';
import { encodeCommand } from './encode';
import { startPostresp, stopServersOnSignal, type ServerHandle } from './servers';

interface DrainOptions {
  host: string;
  port: number | null;
  elements: number;
  clients: number;
  pipeline: number;
  dataSize: number;
  tests: string[];
  timeoutS: number;
  storageMode: string;
  dataDir: string | null;
  json: string | null;
}

interface Drain {
  /** Commands that fill `key` with `n` elements, 1000 a command. */
  fill(key: string, n: number, d: number): string[][];
  pop(key: string): string[];
}

const kChunk = 1000;
const member = (i: number): string => `member:${String(i).padStart(9, '0')}`;
const chunks = (n: number, make: (from: number, to: number) => string[]): string[][] => {
  const out: string[][] = [];
  for (let i = 0; i < n; i += kChunk) out.push(make(i, Math.min(n, i + kChunk)));
  return out;
};
const range = (from: number, to: number, f: (i: number) => string[]): string[] => {
  const out: string[] = [];
  for (let i = from; i < to; i++) out.push(...f(i));
  return out;
};
const listFill = (key: string, n: number, d: number): string[][] =>
  chunks(n, (a, b) => ['RPUSH', key, ...range(a, b, (i) => [String(i).padStart(d, 'x')])]);
const zsetFill = (key: string, n: number): string[][] =>
  chunks(n, (a, b) => ['ZADD', key, ...range(a, b, (i) => [String(i), member(i)])]);

export const kDrains: Record<string, Drain> = {
  lpop: { fill: listFill, pop: (k) => ['LPOP', k] },
  rpop: { fill: listFill, pop: (k) => ['RPOP', k] },
  lmpop: { fill: listFill, pop: (k) => ['LMPOP', '1', k, 'RIGHT'] },
  // RPOPLPUSH onto another list: the source drains from its tail, the destination grows at its head
  lmove: { fill: listFill, pop: (k) => ['LMOVE', k, `${k}:dst`, 'RIGHT', 'LEFT'] },
  zpopmin: { fill: zsetFill, pop: (k) => ['ZPOPMIN', k] },
  zpopmax: { fill: zsetFill, pop: (k) => ['ZPOPMAX', k] },
  spop: { fill: (key, n) => chunks(n, (a, b) => ['SADD', key, ...range(a, b, (i) => [member(i)])]), pop: (k) => ['SPOP', k] },
};

export interface DrainResult {
  test: string;
  command: string;
  elements: number;
  fillSeconds: number;
  /** Pops per second of each tenth of the drain, in order; fewer than 10 after a timeout. */
  deciles: number[];
  /** Pops done (n unless it timed out) and the rate of the tenth cut short by the timeout. */
  popped: number;
  partialRate: number | null;
  seconds: number;
  timedOut: boolean;
}

function usage(): string {
  return 'usage: npm run bench:drain -- [-h host] [-p port] [-n elements] [-c clients] [-P pipeline] [-d bytes]\n' +
    `  [-t ${Object.keys(kDrains).join(',')}] [--timeout seconds] [--storage-mode mode] [--data-dir dir] [--json file]\n`;
}

export function parseDrainArgs(argv: string[]): DrainOptions {
  const o: DrainOptions = { host: '127.0.0.1', port: null, elements: 100_000, clients: 4, pipeline: 16, dataSize: 1024,
    tests: Object.keys(kDrains), timeoutS: 300, storageMode: 'unlogged', dataDir: null, json: null };
  const int = (flag: string, v: string | undefined, min: number): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`${flag} needs an integer ≥ ${min}\n${usage()}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const v = argv[i + 1];
    i++;
    switch (flag) {
      case '-h': o.host = v ?? o.host; break;
      case '-p': o.port = int(flag, v, 1); break;
      case '-n': o.elements = int(flag, v, 10); break;
      case '-c': o.clients = int(flag, v, 1); break;
      case '-P': o.pipeline = int(flag, v, 1); break;
      case '-d': o.dataSize = int(flag, v, 1); break;
      case '--timeout': o.timeoutS = int(flag, v, 1); break;
      case '--storage-mode': o.storageMode = v ?? o.storageMode; break;
      case '--data-dir': o.dataDir = v ?? null; break;
      case '--json': o.json = v ?? null; break;
      case '-t':
        o.tests = (v ?? '').split(',').map((t) => t.trim().toLowerCase()).filter((t) => t !== '');
        for (const t of o.tests) if (!(t in kDrains)) throw new Error(`unknown test ${JSON.stringify(t)}\n${usage()}`);
        break;
      default: throw new Error(`unknown option ${JSON.stringify(flag)}\n${usage()}`);
    }
  }
  return o;
}

/** One connection keeping `pipeline` pops in flight until `take()` says no more. */
function popper(t: { host: string; port: number }, cmd: Buffer, pipeline: number, take: () => boolean,
  onReply: (v: RespValue) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock: Socket = connect({ host: t.host, port: t.port });
    sock.setNoDelay(true);
    let buf: Buffer = Buffer.alloc(0);
    let inFlight = 0;
    const refill = (): void => {
      let n = 0;
      while (inFlight + n < pipeline && take()) n++;
      if (n > 0) sock.write(n === 1 ? cmd : Buffer.concat(new Array<Buffer>(n).fill(cmd)));
      inFlight += n;
      if (inFlight === 0) {
        sock.destroy();
        resolve();
      }
    };
    sock.on('connect', refill);
    sock.on('error', reject);
    sock.on('data', (chunk: Buffer) => {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      let pos = 0;
      try {
        for (let r = decode(buf, pos); r !== null; r = decode(buf, pos)) {
          pos = r.end;
          inFlight--;
          onReply(r.value);
        }
      } catch (err) {
        sock.destroy();
        reject(err);
        return;
      }
      buf = buf.subarray(pos);
      refill();
    });
  });
}

async function runDrain(o: DrainOptions, target: { host: string; port: number }, test: string): Promise<DrainResult> {
  const drain = kDrains[test]!;
  const key = `drain:${test}`;
  const n = o.elements;
  await request(target, [['DEL', key, `${key}:dst`]]);
  const fillStart = performance.now();
  for (const cmd of drain.fill(key, n, o.dataSize)) {
    const [r] = await request(target, [cmd], 60_000);
    if (r instanceof RespErrorValue) throw new Error(`${cmd[0]} ${key}: ${r.message}`);
  }
  const fillSeconds = (performance.now() - fillStart) / 1000;
  const popCmd = drain.pop(key);
  const cmd = encodeCommand(popCmd);
  const tenth = (k: number): number => Math.round((k * n) / 10);
  const marks: number[] = [performance.now()];
  const deadline = marks[0]! + o.timeoutS * 1000;
  let sent = 0;
  let done = 0;
  let timedOut = false;
  const take = (): boolean => {
    if (sent >= n) return false;
    if (performance.now() > deadline) {
      timedOut = true;
      return false;
    }
    sent++;
    return true;
  };
  const onReply = (v: RespValue): void => {
    if (v instanceof RespErrorValue) throw new Error(`${popCmd.join(' ')}: ${v.message}`);
    if (v === null) throw new Error(`${popCmd.join(' ')} answered nil after ${done} of ${n} pops`);
    done++;
    if (done === tenth(marks.length)) marks.push(performance.now());
  };
  await Promise.all(Array.from({ length: o.clients }, () => popper(target, cmd, o.pipeline, take, onReply)));
  const end = performance.now();
  const deciles = marks.slice(1).map((t, i) => (tenth(i + 1) - tenth(i)) / ((t - marks[i]!) / 1000));
  const last = marks.length - 1;
  const partialRate = done < n ? (done - tenth(last)) / ((end - marks[last]!) / 1000) : null;
  await request(target, [['DEL', key, `${key}:dst`]]);
  return { test, command: popCmd.join(' '), elements: n, fillSeconds, deciles, popped: done, partialRate,
    seconds: (end - marks[0]!) / 1000, timedOut };
}

const fmt = (x: number | undefined): string => (x === undefined ? '—' : Math.round(x).toLocaleString('en-US'));

export function drainTable(results: DrainResult[]): string {
  const lines = ['| drain | pops/s, first 10% | pops/s, last 10% | last / first | total s | fill s |', '|---|---:|---:|---:|---:|---:|'];
  for (const r of results) {
    const first = r.deciles[0] ?? r.partialRate ?? undefined;
    const last = r.deciles.length === 10 ? r.deciles[9] : undefined;
    const ratio = first !== undefined && last !== undefined ? `${(last / first).toFixed(2)}×` : '—';
    const note = r.timedOut ? ` (stopped at the timeout after ${fmt(r.popped)} pops, the last ones at ${fmt(r.partialRate ?? undefined)}/s)` : '';
    lines.push(`| ${r.command}${note} | ${fmt(first)} | ${fmt(last)} | ${ratio} | ${r.seconds.toFixed(1)} | ${r.fillSeconds.toFixed(1)} |`);
  }
  return lines.join('\n');
}

async function main(): Promise<number> {
  let o: DrainOptions;
  try {
    o = parseDrainArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}`);
    return 2;
  }
  stopServersOnSignal();
  let server: ServerHandle | null = null;
  if (o.port === null) {
    process.stderr.write(`starting PostRESP (embedded Postgres, --storage-mode ${o.storageMode})...\n`);
    server = await startPostresp({ storageMode: o.storageMode, dataDir: o.dataDir });
  }
  const target = { host: server?.host ?? o.host, port: server?.port ?? o.port! };
  process.stderr.write(`draining ${o.elements} elements per test at ${target.host}:${target.port}, ` +
    `${o.clients} clients × ${o.pipeline} in flight, ${o.dataSize}-byte list elements\n`);
  const results: DrainResult[] = [];
  try {
    for (const test of o.tests) {
      const r = await runDrain(o, target, test);
      results.push(r);
      process.stderr.write(`${r.command}: ${r.deciles.map(fmt).join(' ')} pops/s by decile\n`);
    }
  } finally {
    await server?.stop();
  }
  process.stdout.write(`${drainTable(results)}\n`);
  if (o.json !== null) writeFileSync(o.json, JSON.stringify({ options: o, results }, null, 2));
  return 0;
}

if (require.main === module) {
  main().then((code) => process.exit(code), (err: Error) => {
    process.stderr.write(`bench:drain: ${err.message}\n`);
    process.exit(1);
  });
}
