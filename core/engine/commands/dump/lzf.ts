/**
 * LZF decompression (liblzf's format, which Redis uses for strings over 20 bytes in RDB and DUMP
 * payloads): a control byte < 32 copies that many + 1 literal bytes; otherwise a back reference
 * of length (ctrl >> 5) + 2 (7 means one more length byte) at distance ((ctrl & 31) << 8) + next + 1.
 * undefined for a stream that does not decode to exactly `outLen` bytes.
 */
export function lzfDecompress(src: Uint8Array, outLen: number): Buffer | undefined {
  // at most 264 bytes from a 3-byte back reference: a larger claimed length is corrupt, and is
  // refused before it is allocated (a 20-byte payload must not make 4 GB)
  if (outLen > src.length * 88) return undefined;
  const out = Buffer.allocUnsafe(outLen);
  let ip = 0;
  let op = 0;
  while (ip < src.length) {
    const ctrl = src[ip++];
    if (ctrl < 32) {
      const n = ctrl + 1;
      if (op + n > outLen || ip + n > src.length) return undefined;
      for (let k = 0; k < n; k++) out[op++] = src[ip++];
      continue;
    }
    let n = ctrl >> 5;
    if (n === 7) {
      if (ip >= src.length) return undefined;
      n += src[ip++];
    }
    if (ip >= src.length) return undefined;
    let ref = op - ((ctrl & 0x1f) << 8) - 1 - src[ip++];
    n += 2;
    if (ref < 0 || op + n > outLen) return undefined;
    for (let k = 0; k < n; k++) out[op++] = out[ref++];
  }
  return op === outLen ? out : undefined;
}
