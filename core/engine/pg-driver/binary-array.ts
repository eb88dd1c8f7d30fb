/** One-dimensional Postgres arrays (and int8/int2 scalars) in binary wire format as standalone
 * Buffers: for node-postgres, which would otherwise send a Buffer[] as a text literal with \x hex
 * escapes (twice the bytes and a parse per element on both sides), and for parameters whose type
 * a plain JS array cannot tell (an int8[] of only NULLs). NativePgConnection also takes plain JS
 * arrays and writes the same format straight into its parameter buffer (params.ts).
 *
 *   int32 ndim (1, or 0 when empty) | int32 has_null | int32 element oid
 *   int32 length | int32 lower bound (1) | per element: int32 byte length (-1 = NULL), bytes */
export const kOidBytea = 17;
export const kOidText = 25;
const kOidInt8 = 20;
const kOidInt2 = 21;
const kHeader = 20;

function header(buf: Buffer, hasNull: boolean, oid: number, n: number): void {
  buf.writeInt32BE(1, 0);
  buf.writeInt32BE(hasNull ? 1 : 0, 4);
  buf.writeInt32BE(oid, 8);
  buf.writeInt32BE(n, 12);
  buf.writeInt32BE(1, 16);
}

/** bytea[] (element oid 17) or, with oid 25, text[] from UTF-8 Buffers. */
export function encodeBufferArray(values: readonly (Buffer | null)[], oid = kOidBytea): Buffer {
  const n = values.length;
  let size = n ? 20 : 12;
  let hasNull = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    size += 4;
    if (v) size += v.length;
    else hasNull = 1;
  }
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(n ? 1 : 0, 0);
  out.writeInt32BE(hasNull, 4);
  out.writeInt32BE(oid, 8);
  if (!n) return out;
  out.writeInt32BE(n, 12);
  out.writeInt32BE(1, 16);
  let off = 20;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (!v) {
      out.writeInt32BE(-1, off);
      off += 4;
      continue;
    }
    out.writeInt32BE(v.length, off);
    out.set(v, off + 4);
    off += 4 + v.length;
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
