/**
 * Writes a listpack as redis-server 7.0 builds one (listpack.c): each element in the smallest
 * encoding that holds it, followed by its back-length; a string that is a canonical 64-bit
 * integer ("12", not "012" or "-0") is stored as that integer, as lpAppend does, so a node
 * written here is byte for byte the node redis-server writes for the same elements.
 * The reader is ./packed.ts listpackEntries.
 */

/** lpStringToInt64: canonical decimal text of a signed 64-bit integer */
const kCanonicalInt = /^(0|-?[1-9][0-9]{0,18})$/;
const kI64Min = -(2n ** 63n);
const kI64Max = 2n ** 63n - 1n;

export function canonicalInt(b: Buffer): bigint | undefined {
  if (b.length === 0 || b.length > 20) return undefined;
  const s = b.toString('latin1');
  if (!kCanonicalInt.test(s)) return undefined;
  const v = BigInt(s);
  return v < kI64Min || v > kI64Max ? undefined : v;
}

/** lpEncodeBacklen: the entry's length, 7 bits per byte, most significant first */
function backlen(l: number): number[] {
  if (l <= 127) return [l];
  if (l < 16383) return [l >> 7, (l & 127) | 128];
  if (l < 2097151) return [l >> 14, ((l >> 7) & 127) | 128, (l & 127) | 128];
  if (l < 268435455) return [l >> 21, ((l >> 14) & 127) | 128, ((l >> 7) & 127) | 128, (l & 127) | 128];
  return [Math.floor(l / 2 ** 28), ((l >> 21) & 127) | 128, ((l >> 14) & 127) | 128, ((l >> 7) & 127) | 128, (l & 127) | 128];
}

function intEncoding(v: bigint): Buffer {
  if (v >= 0n && v <= 127n) return Buffer.from([Number(v)]);
  if (v >= -4096n && v <= 4095n) {
    const u = Number(v < 0n ? v + 8192n : v);
    return Buffer.from([0xc0 | (u >> 8), u & 0xff]);
  }
  let b: Buffer;
  if (v >= -32768n && v <= 32767n) { b = Buffer.alloc(3); b[0] = 0xf1; b.writeInt16LE(Number(v), 1); }
  else if (v >= -8388608n && v <= 8388607n) { b = Buffer.alloc(4); b[0] = 0xf2; b.writeIntLE(Number(v), 1, 3); }
  else if (v >= -2147483648n && v <= 2147483647n) { b = Buffer.alloc(5); b[0] = 0xf3; b.writeInt32LE(Number(v), 1); }
  else { b = Buffer.alloc(9); b[0] = 0xf4; b.writeBigInt64LE(v, 1); }
  return b;
}

function stringEncoding(s: Buffer): Buffer[] {
  const n = s.length;
  if (n < 64) return [Buffer.from([0x80 | n]), s];
  if (n < 4096) return [Buffer.from([0xe0 | (n >> 8), n & 0xff]), s];
  const h = Buffer.alloc(5);
  h[0] = 0xf0;
  h.writeUInt32LE(n, 1);
  return [h, s];
}

export class ListpackWriter {
  private readonly parts: Buffer[] = [];
  private bytes = 6 + 1; // header (total u32, count u16) and the 0xff terminator
  private count = 0;

  private push(enc: Buffer[]): void {
    let l = 0;
    for (const b of enc) l += b.length;
    const bl = Buffer.from(backlen(l));
    this.parts.push(...enc, bl);
    this.bytes += l + bl.length;
    this.count++;
  }

  int(v: bigint | number): void {
    this.push([intEncoding(BigInt(v))]);
  }

  /** an element as lpAppend stores it: an integer when its text is one */
  element(s: Buffer): void {
    const v = canonicalInt(s);
    this.push(v === undefined ? stringEncoding(s) : [intEncoding(v)]);
  }

  finish(): Buffer {
    const h = Buffer.alloc(6);
    h.writeUInt32LE(this.bytes, 0);
    h.writeUInt16LE(this.count < 65535 ? this.count : 65535, 4); // 65535: "count unknown", as Redis
    return Buffer.concat([h, ...this.parts, Buffer.from([0xff])]);
  }
}
