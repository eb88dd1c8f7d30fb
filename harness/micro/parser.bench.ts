// RequestParser against redis-parser 3 (the parser ioredis uses, returnBuffers: true) on the same
// pre-encoded pipelines, fed the same way: the whole pipeline per push, or cut into 1 KiB chunks
// as a socket may deliver it. Inputs are built once (Garnet BDN style); each timed call parses
// the pipeline kRepeat times so timer overhead (~1 µs) stays under 2% of a sample.
import { Bench } from 'tinybench';
import { RequestParser, kDefaultParserLimits } from '../../protocol/parser';
import { encodeCommand } from '../../protocol/encode-command';

type RedisParserCtor = new (options: {
  returnReply: (reply: unknown) => void;
  returnError: (err: Error) => void;
  returnFatalError?: (err: Error) => void;
  returnBuffers: boolean;
}) => { execute(buffer: Buffer): void };
// redis-parser ships no types
// eslint-disable-next-line @typescript-eslint/no-require-imports
const RedisParser = require('redis-parser') as RedisParserCtor;

const kPipeline = 16;
const kRepeat = 64;
const kChunk = 1024;

function key(i: number): string {
  return `key:${String((i * 7919) % 1000000).padStart(12, '0')}`;
}

function pipeline(make: (i: number) => (string | Buffer)[]): Buffer {
  return Buffer.concat(Array.from({ length: kPipeline }, (_, i) => encodeCommand(make(i))));
}

function split(b: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(Buffer.from(b.subarray(i, i + size)));
  return out;
}

interface Input { name: string; chunks: Buffer[] }

function inputs(): Input[] {
  const value3 = Buffer.from('xyz');
  const value1k = Buffer.alloc(1024, 'v');
  const pipes: [string, Buffer][] = [
    ['16 GET', pipeline((i) => ['GET', key(i)])],
    ['16 SET 3 B', pipeline((i) => ['SET', key(i), value3])],
    ['16 SET 1 KiB', pipeline((i) => ['SET', key(i), value1k])],
  ];
  const out: Input[] = [];
  for (const [name, wire] of pipes) {
    out.push({ name: `${name}, whole`, chunks: [wire] });
    out.push({ name: `${name}, 1 KiB chunks`, chunks: split(wire, kChunk) });
  }
  return out;
}

/** Both parsers must see the same commands before their speed means anything. */
function check(input: Input): void {
  let ours = 0;
  let theirs = 0;
  const p = new RequestParser({ ...kDefaultParserLimits });
  const r = new RedisParser({ returnReply: () => theirs++, returnError: (e) => { throw e; }, returnBuffers: true });
  for (const c of input.chunks) {
    if (p.push(c, () => ours++) !== undefined) throw new Error(`${input.name}: parse error`);
    r.execute(c);
  }
  if (ours !== kPipeline || theirs !== kPipeline) throw new Error(`${input.name}: ${ours} vs ${theirs} commands`);
}

/**
 * Process CPU time (user + system, ms). This 2-core machine is shared with other load; wall time
 * swung 2x between identical runs, CPU time about 20%. BENCH_CLOCK=wall uses performance.now().
 */
function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

export async function run(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 11);
  const time = Number(process.env.BENCH_TIME_MS ?? 150);
  const clock = process.env.BENCH_CLOCK === 'wall' ? 'wall' : 'cpu';
  console.log(
    `clock: ${clock} time; ${rounds} rounds of ${time} ms per task; rates are medians over rounds, the ratio is ` +
      `the median of per-round ratios (both parsers measured back to back); ${kRepeat} pipelines of ${kPipeline} commands per sample`,
  );
  let sunk = 0;
  const sink = (argv: Buffer[]) => { sunk += argv.length; };
  const all = inputs();
  for (const input of all) check(input);
  // pipelines per second, per task name, one entry per round
  const rates = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({ time, warmupTime: 100, ...(clock === 'cpu' ? { now: cpuNow } : {}) });
    for (const { name, chunks } of all) {
      const ours = new RequestParser({ ...kDefaultParserLimits });
      const theirs = new RedisParser({ returnReply: (a) => { sunk += (a as Buffer[]).length; }, returnError: (e) => { throw e; }, returnBuffers: true });
      bench.add(`${name} | postresp`, () => {
        for (let k = 0; k < kRepeat; k++) for (let i = 0; i < chunks.length; i++) ours.push(chunks[i], sink);
      });
      bench.add(`${name} | redis-parser`, () => {
        for (let k = 0; k < kRepeat; k++) for (let i = 0; i < chunks.length; i++) theirs.execute(chunks[i]);
      });
    }
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result as { period?: number } | undefined;
      if (!result?.period) throw new Error(`${task.name}: no result`);
      const list = rates.get(task.name) ?? [];
      list.push((1000 / result.period) * kRepeat);
      rates.set(task.name, list);
    }
  }
  if (sunk === 0) throw new Error('nothing parsed');

  const rows = all.map(({ name }) => {
    const oursRounds = rates.get(`${name} | postresp`) ?? [];
    const theirsRounds = rates.get(`${name} | redis-parser`) ?? [];
    const ours = median(oursRounds);
    const theirs = median(theirsRounds);
    const ratio = median(oursRounds.map((r, i) => r / theirsRounds[i]));
    return {
      input: name,
      'postresp pipelines/s': Math.round(ours),
      'postresp commands/s': Math.round(ours * kPipeline),
      'redis-parser pipelines/s': Math.round(theirs),
      'redis-parser commands/s': Math.round(theirs * kPipeline),
      'ours/redis-parser': `${ratio.toFixed(2)}x`,
    };
  });
  console.table(rows);
}

if (require.main === module) {
  run().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
