/**
 * CRC-64/Jones as Redis computes it for DUMP payloads (crc64.c: reflected polynomial
 * 0x95ac9329ac4bc9b5, initial value 0, no final xor; crc64("123456789") = 0xe9c6d914c4b8d9ca).
 * Table-driven over two 32-bit halves: no BigInt per byte.
 */
const kLo = new Uint32Array(256);
const kHi = new Uint32Array(256);
for (let i = 0; i < 256; i++) {
  let lo = i;
  let hi = 0;
  for (let k = 0; k < 8; k++) {
    const odd = lo & 1;
    lo = ((lo >>> 1) | (hi << 31)) >>> 0;
    hi >>>= 1;
    if (odd) { lo = (lo ^ 0xac4bc9b5) >>> 0; hi = (hi ^ 0x95ac9329) >>> 0; }
  }
  kLo[i] = lo;
  kHi[i] = hi;
}

/** the checksum of b as 8 bytes, little-endian (the DUMP trailer's order) */
export function crc64(b: Uint8Array): Buffer {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < b.length; i++) {
    const t = (lo ^ b[i]) & 0xff;
    lo = (((lo >>> 8) | (hi << 24)) ^ kLo[t]) >>> 0;
    hi = ((hi >>> 8) ^ kHi[t]) >>> 0;
  }
  const out = Buffer.allocUnsafe(8);
  out.writeUInt32LE(lo, 0);
  out.writeUInt32LE(hi, 4);
  return out;
}
