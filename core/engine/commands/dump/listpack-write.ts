/**
 * Writes a listpack as redis-server 7.0 builds one (listpack.c): each element in the smallest
 * encoding that holds it, followed by its back-length; a string that is a canonical 64-bit
 * integer ("12", not "012" or "-0") is stored as that integer, as lpAppend does, so a node
 * written here is byte for byte the node redis-server writes for the same elements.
 * The reader is ./packed.ts listpackEntries.
 *
 * Written into one growing buffer with Number arithmetic below 2^53 (a node is ~400 elements
 * and a 100k-entry stream DUMPs 500k of them: a Buffer and a BigInt per element took 1.1 s
 * of the 1.4 s such a DUMP spent in the worker).
 */

const kI64Min = -(2n ** 63n);
const kI64Max = 2n ** 63n - 1n;

/** lpStringToInt64: canonical decimal text of a signed 64-bit integer */
export function canonicalInt(b: Buffer): bigint | undefined {
  const v = canonicalNumber(b);
  return typeof v === 'number' ? BigInt(v) : v;
}

/** canonicalInt as a Number when it is a safe integer (≤ 15 digits), else a bigint */
function canonicalNumber(b: Buffer): number | bigint | undefined {
  const n = b.length;
  if (n === 0 || n > 20) return undefined;
  const neg = b[0] === 45; // -
  const from = neg ? 1 : 0;
  if (from === n) return undefined;
  if (b[from] === 48) return n === 1 ? 0 : undefined; // 0, never "-0" or "012"
  let v = 0;
  for (let i = from; i < n; i++) {
    const d = b[i] - 48;
    if (d < 0 || d > 9) return undefined;
    v = v * 10 + d;
  }
  if (n - from <= 15) return neg ? -v : v;
  const big = BigInt(b.toString('latin1'));
  return big < kI64Min || big > kI64Max ? undefined : big;
}

export class ListpackWriter {
  private buf = Buffer.allocUnsafe(256);
  private at = 6; // after the header (total u32, count u16)
  private count = 0;

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  /** lpEncodeBacklen for an entry of l bytes: 7 bits per byte, most significant first */
  private backlen(l: number): void {
    const b = this.buf;
    if (l <= 127) { b[this.at++] = l; }
    else if (l < 16383) { b[this.at++] = l >> 7; b[this.at++] = (l & 127) | 128; }
    else if (l < 2097151) { b[this.at++] = l >> 14; b[this.at++] = ((l >> 7) & 127) | 128; b[this.at++] = (l & 127) | 128; }
    else if (l < 268435455) {
      b[this.at++] = l >> 21; b[this.at++] = ((l >> 14) & 127) | 128; b[this.at++] = ((l >> 7) & 127) | 128; b[this.at++] = (l & 127) | 128;
    } else {
      b[this.at++] = Math.floor(l / 2 ** 28); b[this.at++] = ((l >> 21) & 127) | 128; b[this.at++] = ((l >> 14) & 127) | 128;
      b[this.at++] = ((l >> 7) & 127) | 128; b[this.at++] = (l & 127) | 128;
    }
    this.count++;
  }

  /** an integer element in its smallest encoding */
  int(v: number | bigint): void {
    this.room(14);
    const b = this.buf;
    const start = this.at;
    if (typeof v === 'bigint' && v >= -(2n ** 53n) && v <= 2n ** 53n) v = Number(v);
    if (typeof v === 'bigint') { b[this.at] = 0xf4; b.writeBigInt64LE(v, this.at + 1); this.at += 9; }
    else if (v >= 0 && v <= 127) b[this.at++] = v;
    else if (v >= -4096 && v <= 4095) { const u = v < 0 ? v + 8192 : v; b[this.at++] = 0xc0 | (u >> 8); b[this.at++] = u & 0xff; }
    else if (v >= -32768 && v <= 32767) { b[this.at] = 0xf1; b.writeInt16LE(v, this.at + 1); this.at += 3; }
    else if (v >= -8388608 && v <= 8388607) { b[this.at] = 0xf2; b.writeIntLE(v, this.at + 1, 3); this.at += 4; }
    else if (v >= -2147483648 && v <= 2147483647) { b[this.at] = 0xf3; b.writeInt32LE(v, this.at + 1); this.at += 5; }
    else { b[this.at] = 0xf4; b.writeBigInt64LE(BigInt(v), this.at + 1); this.at += 9; }
    this.backlen(this.at - start);
  }

  /** an element as lpAppend stores it: an integer when its text is one */
  element(s: Buffer): void {
    const v = canonicalNumber(s);
    if (v !== undefined) { this.int(v); return; }
    const n = s.length;
    this.room(n + 10);
    const b = this.buf;
    const start = this.at;
    if (n < 64) b[this.at++] = 0x80 | n;
    else if (n < 4096) { b[this.at++] = 0xe0 | (n >> 8); b[this.at++] = n & 0xff; }
    else { b[this.at] = 0xf0; b.writeUInt32LE(n, this.at + 1); this.at += 5; }
    s.copy(b, this.at);
    this.at += n;
    this.backlen(this.at - start);
  }

  finish(): Buffer {
    this.room(1);
    this.buf[this.at++] = 0xff;
    this.buf.writeUInt32LE(this.at, 0);
    this.buf.writeUInt16LE(this.count < 65535 ? this.count : 65535, 4); // 65535: "count unknown", as Redis
    return this.buf.subarray(0, this.at);
  }
}
