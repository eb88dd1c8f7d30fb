/**
 * Postgres binary array format for bind parameters (`$1::bytea[]` sent as format 1): node-postgres
 * would otherwise turn a Buffer[] into a text literal with \x hex escapes, doubling the bytes sent
 * and costing a parse per element on both sides.
 *
 *   int32 ndim=1 | int32 hasnull | int32 elemoid | int32 length | int32 lbound=1 | (int32 len, bytes)…
 */
const kHeader = 20;
export const kOidBool = 16;
export const kOidBytea = 17;
export const kOidInt8 = 20;
export const kOidInt2 = 21;

function header(buf: Buffer, hasNull: boolean, oid: number, n: number): void {
  buf.writeInt32BE(1, 0);
  buf.writeInt32BE(hasNull ? 1 : 0, 4);
  buf.writeInt32BE(oid, 8);
  buf.writeInt32BE(n, 12);
  buf.writeInt32BE(1, 16);
}

export function byteaArray(items: readonly (Buffer | null)[]): Buffer {
  let size = kHeader;
  let hasNull = false;
  for (const b of items) {
    size += 4 + (b === null ? 0 : b.length);
    if (b === null) hasNull = true;
  }
  const out = Buffer.allocUnsafe(size);
  header(out, hasNull, kOidBytea, items.length);
  let at = kHeader;
  for (const b of items) {
    if (b === null) { out.writeInt32BE(-1, at); at += 4; continue; }
    out.writeInt32BE(b.length, at);
    b.copy(out, at + 4);
    at += 4 + b.length;
  }
  return out;
}

export function int2Array(items: readonly number[]): Buffer {
  const out = Buffer.allocUnsafe(kHeader + items.length * 6);
  header(out, false, kOidInt2, items.length);
  let at = kHeader;
  for (const v of items) {
    out.writeInt32BE(2, at);
    out.writeInt16BE(v, at + 4);
    at += 6;
  }
  return out;
}

/** int8[]; null entries (no expiry) allowed. */
export function int8Array(items: readonly (number | bigint | null)[]): Buffer {
  let hasNull = false;
  let size = kHeader;
  for (const v of items) {
    size += v === null ? 4 : 12;
    if (v === null) hasNull = true;
  }
  const out = Buffer.allocUnsafe(size);
  header(out, hasNull, kOidInt8, items.length);
  let at = kHeader;
  for (const v of items) {
    if (v === null) { out.writeInt32BE(-1, at); at += 4; continue; }
    out.writeInt32BE(8, at);
    out.writeBigInt64BE(BigInt(v), at + 4);
    at += 12;
  }
  return out;
}

export function int8(v: number | bigint): Buffer {
  const out = Buffer.allocUnsafe(8);
  out.writeBigInt64BE(BigInt(v));
  return out;
}

export function int2(v: number): Buffer {
  const out = Buffer.allocUnsafe(2);
  out.writeInt16BE(v);
  return out;
}
