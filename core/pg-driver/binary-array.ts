/** One-dimensional Postgres arrays in binary wire format as a standalone Buffer, for drivers that
 * take only Buffers as binary parameters (node-postgres, the benchmark). NativePgConnection takes
 * plain JS arrays and writes the same format straight into its parameter buffer (params.ts).
 *
 *   int32 ndim (1, or 0 when empty) | int32 has_null | int32 element oid
 *   int32 length | int32 lower bound (1) | per element: int32 byte length (-1 = NULL), bytes */
export const kOidBytea = 17;
export const kOidText = 25;

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
