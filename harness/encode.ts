// Pre-encoded pipeline buffers. A batch is -P commands encoded once; before each send only the
// 12 digits of every key placeholder are rewritten in place (valkey-benchmark's
// replacePlaceholders), so sending costs no allocation and no encoding.
//
//   batch buffer:  *3\r\n$3\r\nSET\r\n$16\r\nkey:000000004711\r\n$3\r\nxyz\r\n *3\r\n…
//                                          ^ offset (12 digits rewritten per send)
//
// Mixed workloads (--ratio) and random value sizes (--data-size-range) use a pool of variants
// built once with the exact command mix; a client picks one variant per send.

import type { HarnessOptions } from './options';
import type { KeyGen, Rng } from './keys';
import { benchmarkData, kDataPlaceholder, type CommandTemplate, type TestSpec } from './workloads';

const kPlaceholderLen = 12;
const kRandInt = '__rand_int__';
const kRandNth = /__rand_(1st|2nd|3rd|[4-9]th)__/g;
/** At most this many variant bytes per client: 50 clients × 8 MiB stays well under a GiB. */
const kMaxPoolBytesPerClient = 8 * 1024 * 1024;
const kMaxVariants = 64;

export interface Batch {
  buf: Buffer;
  /** Offsets of the 12-digit placeholders in buf. */
  offsets: Int32Array;
  /** -1: draw a new key; otherwise copy the digits written at offsets[copyFrom[i]]. */
  copyFrom: Int32Array;
  /** Replies this batch produces. */
  commands: number;
}

/** RESP array encoding of one command; `inline` sends "PING\r\n" like valkey's PING_INLINE. */
export function encodeCommand(args: readonly (string | Buffer)[], inline = false): Buffer {
  if (inline) return Buffer.from(`${args.join(' ')}\r\n`, 'latin1');
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`, 'latin1')];
  for (const a of args) {
    const b = typeof a === 'string' ? Buffer.from(a, 'latin1') : a;
    parts.push(Buffer.from(`$${b.length}\r\n`, 'latin1'), b, Buffer.from('\r\n', 'latin1'));
  }
  return Buffer.concat(parts);
}

interface EncodedCommand {
  buf: Buffer;
  offsets: number[];
  copyFrom: number[];
}

/** valkey replaces every "__data__" inside an argument with the -d bytes. */
function withData(arg: string, data: Buffer): string | Buffer {
  if (arg === kDataPlaceholder) return data;
  if (!arg.includes(kDataPlaceholder)) return arg;
  return Buffer.from(arg.split(kDataPlaceholder).join(data.toString('latin1')), 'latin1');
}

function encodeTemplate(t: CommandTemplate, data: Buffer, randomKeys: boolean): EncodedCommand {
  const buf = encodeCommand(t.args.map((a) => withData(a, data)), t.inline);
  const offsets: number[] = [];
  const copyFrom: number[] = [];
  if (!randomKeys) return { buf, offsets, copyFrom };
  // Values are bytes '0'+(0..63), i.e. 48..111, which never contain 'r' (114): a placeholder
  // can only be found in the key arguments.
  const text = buf.toString('latin1');
  const firstOfNth = new Map<string, number>();
  const found: Array<{ pos: number; nth: string | null }> = [];
  for (let p = text.indexOf(kRandInt); p >= 0; p = text.indexOf(kRandInt, p + kPlaceholderLen)) {
    found.push({ pos: p, nth: null });
  }
  for (const m of text.matchAll(kRandNth)) {
    if (m.index !== undefined) found.push({ pos: m.index, nth: m[1] });
  }
  found.sort((x, y) => x.pos - y.pos);
  for (const f of found) {
    offsets.push(f.pos);
    const first = f.nth === null ? undefined : firstOfNth.get(f.nth);
    copyFrom.push(first ?? -1);
    if (f.nth !== null && first === undefined) firstOfNth.set(f.nth, offsets.length - 1);
  }
  return { buf, offsets, copyFrom };
}

function concatBatch(cmds: EncodedCommand[]): Batch {
  const offsets: number[] = [];
  const copyFrom: number[] = [];
  let base = 0;
  for (const c of cmds) {
    const first = offsets.length;
    for (let i = 0; i < c.offsets.length; i++) {
      offsets.push(base + c.offsets[i]);
      copyFrom.push(c.copyFrom[i] < 0 ? -1 : first + c.copyFrom[i]);
    }
    base += c.buf.length;
  }
  return {
    buf: Buffer.concat(cmds.map((c) => c.buf)),
    offsets: Int32Array.from(offsets),
    copyFrom: Int32Array.from(copyFrom),
    commands: cmds.length,
  };
}

/** Fisher-Yates with the client's generator. */
function shuffle<T>(a: T[], rng: Rng): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rng.float() * (i + 1));
    const t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}

/** The pipeline buffers one client sends. Called once per client. */
export function buildBatches(test: TestSpec, o: HarnessOptions, rng: Rng): Batch[] {
  const fixedData = benchmarkData(o.dataSize);
  const mixed = test.commands.length > 1;
  const ranged = o.dataSizeRange !== null;
  if (!mixed && !ranged) {
    const cmd = encodeTemplate(test.commands[0], fixedData, o.randomKeys);
    return [concatBatch(new Array<EncodedCommand>(o.pipeline).fill(cmd))];
  }
  const [minSize, maxSize] = o.dataSizeRange ?? [o.dataSize, o.dataSize];
  const avgCmd = (minSize + maxSize) / 2 + 64;
  const variants = Math.max(1, Math.min(kMaxVariants, Math.floor(kMaxPoolBytesPerClient / (avgCmd * o.pipeline))));
  const slots = variants * o.pipeline;
  // Exact command mix over the pool: floor shares, remainder to the largest weights.
  const total = test.weights.reduce((a, b) => a + b, 0);
  const counts = test.weights.map((w) => Math.floor((slots * w) / total));
  for (let k = 0; counts.reduce((a, b) => a + b, 0) < slots; k++) {
    const order = test.weights.map((w, i) => ({ w, i })).sort((x, y) => y.w - x.w);
    counts[order[k % order.length].i]++;
  }
  const which: number[] = [];
  counts.forEach((n, i) => { for (let j = 0; j < n; j++) which.push(i); });
  shuffle(which, rng);
  const dataBySize = new Map<number, Buffer>();
  const dataOf = (size: number): Buffer => {
    let d = dataBySize.get(size);
    if (d === undefined) dataBySize.set(size, (d = benchmarkData(size)));
    return d;
  };
  const out: Batch[] = [];
  for (let v = 0; v < variants; v++) {
    const cmds: EncodedCommand[] = [];
    for (let s = 0; s < o.pipeline; s++) {
      const size = ranged ? minSize + Math.floor(rng.float() * (maxSize - minSize + 1)) : o.dataSize;
      cmds.push(encodeTemplate(test.commands[which[v * o.pipeline + s]], ranged ? dataOf(size) : fixedData, o.randomKeys));
    }
    out.push(concatBatch(cmds));
  }
  return out;
}

/** Writes a fresh zero-padded 12-digit key number into every placeholder of the batch. */
export function randomize(b: Batch, keys: KeyGen): void {
  const buf = b.buf;
  const offsets = b.offsets;
  const copyFrom = b.copyFrom;
  for (let i = 0; i < offsets.length; i++) {
    const at = offsets[i];
    const src = copyFrom[i];
    if (src >= 0) {
      buf.copy(buf, at, offsets[src], offsets[src] + kPlaceholderLen);
      continue;
    }
    let k = keys.next();
    let p = at + kPlaceholderLen - 1;
    if (k < 2147483648) {
      for (; p >= at; p--) {
        const q = (k / 10) | 0;
        buf[p] = 48 + k - q * 10; // 48 = '0'
        k = q;
      }
    } else {
      for (; p >= at; p--) {
        const q = Math.floor(k / 10);
        buf[p] = 48 + k - q * 10;
        k = q;
      }
    }
  }
}

/** AUTH / SELECT / HELLO 3 sent once on connect, in valkey-benchmark's order. */
export function prefixCommands(o: HarnessOptions): Buffer[] {
  const out: Buffer[] = [];
  if (o.password !== null) out.push(encodeCommand(o.user !== null ? ['AUTH', o.user, o.password] : ['AUTH', o.password]));
  if (o.dbnum !== 0) out.push(encodeCommand(['SELECT', String(o.dbnum)]));
  if (o.resp3) out.push(encodeCommand(['HELLO', '3']));
  return out;
}
