/**
 * The packed containers inside RDB values, read into their entries (Buffers; integers as their
 * decimal text, as Redis returns them): listpack (7.0's small hashes, zsets and list nodes),
 * ziplist (older payloads), intset (small integer sets). Each throws BadFormat when a length
 * or an encoding points outside the blob: the caller answers "Bad data format".
 */
export class BadFormat extends Error {}

const bad = (): never => { throw new BadFormat('bad data format'); };
const int = (v: number | bigint) => Buffer.from(String(v), 'latin1');

/** listpack: total bytes u32, count u16, entries each followed by its back-length, 0xff */
export function listpackEntries(b: Buffer): Buffer[] {
  if (b.length < 7 || b.readUInt32LE(0) !== b.length || b[b.length - 1] !== 0xff) bad();
  const out: Buffer[] = [];
  let p = 6;
  const need = (n: number) => { if (p + n > b.length - 1) bad(); };
  while (b[p] !== 0xff) {
    const start = p;
    const e = b[p];
    if ((e & 0x80) === 0) { out.push(int(e & 0x7f)); p += 1; }
    else if ((e & 0xc0) === 0x80) { const n = e & 0x3f; need(1 + n); out.push(b.subarray(p + 1, p + 1 + n)); p += 1 + n; }
    else if ((e & 0xe0) === 0xc0) { need(2); const v = ((e & 0x1f) << 8) | b[p + 1]; out.push(int(v >= 4096 ? v - 8192 : v)); p += 2; }
    else if ((e & 0xf0) === 0xe0) { need(2); const n = ((e & 0x0f) << 8) | b[p + 1]; need(2 + n); out.push(b.subarray(p + 2, p + 2 + n)); p += 2 + n; }
    else if (e === 0xf0) { need(5); const n = b.readUInt32LE(p + 1); need(5 + n); out.push(b.subarray(p + 5, p + 5 + n)); p += 5 + n; }
    else if (e === 0xf1) { need(3); out.push(int(b.readInt16LE(p + 1))); p += 3; }
    else if (e === 0xf2) { need(4); out.push(int(b.readIntLE(p + 1, 3))); p += 4; }
    else if (e === 0xf3) { need(5); out.push(int(b.readInt32LE(p + 1))); p += 5; }
    else if (e === 0xf4) { need(9); out.push(int(b.readBigInt64LE(p + 1))); p += 9; }
    else bad();
    // the back-length that follows: 7 bits per byte, with lpEncodeBacklen's own bounds (an entry
    // of exactly 16383 bytes takes 3)
    const len = p - start;
    p += len <= 127 ? 1 : len < 16383 ? 2 : len < 2097151 ? 3 : len < 268435455 ? 4 : 5;
    if (p >= b.length) bad();
  }
  if (p !== b.length - 1) bad();
  const count = b.readUInt16LE(4);
  if (count !== 0xffff && count !== out.length) bad();
  return out;
}

/** ziplist: total bytes u32, tail offset u32, count u16, entries (prevlen, encoding, data), 0xff */
export function ziplistEntries(b: Buffer): Buffer[] {
  if (b.length < 11 || b.readUInt32LE(0) !== b.length || b[b.length - 1] !== 0xff) bad();
  const out: Buffer[] = [];
  let p = 10;
  const need = (n: number) => { if (p + n > b.length - 1) bad(); };
  while (b[p] !== 0xff) {
    need(1);
    p += b[p] === 0xfe ? 5 : 1; // prevlen
    need(1);
    const e = b[p];
    const top = e >> 6;
    if (top === 0) { const n = e & 0x3f; need(1 + n); out.push(b.subarray(p + 1, p + 1 + n)); p += 1 + n; }
    else if (top === 1) { need(2); const n = ((e & 0x3f) << 8) | b[p + 1]; need(2 + n); out.push(b.subarray(p + 2, p + 2 + n)); p += 2 + n; }
    else if (top === 2) { need(5); const n = b.readUInt32BE(p + 1); need(5 + n); out.push(b.subarray(p + 5, p + 5 + n)); p += 5 + n; }
    else if (e === 0xc0) { need(3); out.push(int(b.readInt16LE(p + 1))); p += 3; }
    else if (e === 0xd0) { need(5); out.push(int(b.readInt32LE(p + 1))); p += 5; }
    else if (e === 0xe0) { need(9); out.push(int(b.readBigInt64LE(p + 1))); p += 9; }
    else if (e === 0xf0) { need(4); out.push(int(b.readIntLE(p + 1, 3))); p += 4; }
    else if (e === 0xfe) { need(2); out.push(int(b.readInt8(p + 1))); p += 2; }
    else if (e >= 0xf1 && e <= 0xfd) { out.push(int((e & 0x0f) - 1)); p += 1; }
    else bad();
  }
  if (p !== b.length - 1) bad();
  const count = b.readUInt16LE(8);
  if (count !== 0xffff && count !== out.length) bad();
  return out;
}

/** intset: element width u32 (2, 4, 8), count u32, sorted little-endian integers */
export function intsetEntries(b: Buffer): Buffer[] {
  if (b.length < 8) bad();
  const w = b.readUInt32LE(0);
  const n = b.readUInt32LE(4);
  if ((w !== 2 && w !== 4 && w !== 8) || b.length !== 8 + w * n) bad();
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const at = 8 + i * w;
    out.push(int(w === 2 ? b.readInt16LE(at) : w === 4 ? b.readInt32LE(at) : b.readBigInt64LE(at)));
  }
  return out;
}
