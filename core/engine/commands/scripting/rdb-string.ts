/**
 * The pieces of Redis's RDB format FUNCTION DUMP/RESTORE payloads use: length-prefixed strings
 * (rdbSaveLen / rdbLoadLen, with LZF-compressed ones as Redis writes them for long strings),
 * and the CRC-64 (Jones polynomial, reflected) of the footer.
 */

/** Redis's crc64: reflected 0xad93d23594c935a9, init 0, no final xor ("123456789" → 0xe9c6d914c4b8d9ca). */
const kCrcTable = (() => {
  const poly = 0x95ac9329ac4bc9b5n; // 0xad93d23594c935a9 bit-reversed
  const t: bigint[] = [];
  for (let i = 0n; i < 256n; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1n ? (c >> 1n) ^ poly : c >> 1n;
    t.push(c);
  }
  return t;
})();

export function crc64(data: Buffer): bigint {
  let crc = 0n;
  for (const b of data) crc = kCrcTable[Number((crc ^ BigInt(b)) & 0xffn)] ^ (crc >> 8n);
  return crc;
}

export function saveLen(n: number): Buffer {
  if (n < 64) return Buffer.from([n]);
  if (n < 16384) return Buffer.from([0x40 | (n >> 8), n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = 0x80;
  b.writeUInt32BE(n, 1);
  return b;
}

/** A string at `at`: its bytes and where the next item starts, or undefined when malformed. */
export function loadString(p: Buffer, at: number): { value: Buffer; next: number } | undefined {
  const head = readLen(p, at);
  if (head === undefined) return undefined;
  if (!head.encoded) {
    if (head.next + head.len > p.length) return undefined;
    return { value: p.subarray(head.next, head.next + head.len), next: head.next + head.len };
  }
  switch (head.len) {
    case 0: return head.next + 1 <= p.length ? { value: Buffer.from(String(p.readInt8(head.next))), next: head.next + 1 } : undefined;
    case 1: return head.next + 2 <= p.length ? { value: Buffer.from(String(p.readInt16LE(head.next))), next: head.next + 2 } : undefined;
    case 2: return head.next + 4 <= p.length ? { value: Buffer.from(String(p.readInt32LE(head.next))), next: head.next + 4 } : undefined;
    case 3: {
      const clen = readLen(p, head.next);
      const len = clen && readLen(p, clen.next);
      if (!clen || !len || len.next + clen.len > p.length) return undefined;
      const out = lzfDecompress(p.subarray(len.next, len.next + clen.len), len.len);
      return out && { value: out, next: len.next + clen.len };
    }
  }
  return undefined;
}

function readLen(p: Buffer, at: number): { len: number; encoded: boolean; next: number } | undefined {
  if (at >= p.length) return undefined;
  const b = p[at];
  switch (b >> 6) {
    case 0: return { len: b & 0x3f, encoded: false, next: at + 1 };
    case 1: return at + 2 <= p.length ? { len: ((b & 0x3f) << 8) | p[at + 1], encoded: false, next: at + 2 } : undefined;
    case 3: return { len: b & 0x3f, encoded: true, next: at + 1 };
  }
  if (b === 0x80) return at + 5 <= p.length ? { len: p.readUInt32BE(at + 1), encoded: false, next: at + 5 } : undefined;
  if (b === 0x81 && at + 9 <= p.length) {
    const n = Number(p.readBigUInt64BE(at + 1));
    return Number.isSafeInteger(n) ? { len: n, encoded: false, next: at + 9 } : undefined;
  }
  return undefined;
}

/** LZF (liblzf's lzf_decompress), as Redis compresses long RDB strings. */
function lzfDecompress(src: Buffer, outLen: number): Buffer | undefined {
  if (outLen > 512 * 1024 * 1024) return undefined;
  const out = Buffer.alloc(outLen);
  let ip = 0;
  let op = 0;
  while (ip < src.length) {
    const ctrl = src[ip++];
    if (ctrl < 32) {
      const n = ctrl + 1;
      if (op + n > outLen || ip + n > src.length) return undefined;
      src.copy(out, op, ip, ip + n);
      op += n;
      ip += n;
      continue;
    }
    let len = ctrl >> 5;
    let ref = op - ((ctrl & 0x1f) << 8) - 1;
    if (len === 7) {
      if (ip >= src.length) return undefined;
      len += src[ip++];
    }
    if (ip >= src.length) return undefined;
    ref -= src[ip++];
    len += 2;
    if (op + len > outLen || ref < 0) return undefined;
    for (let k = 0; k < len; k++) out[op++] = out[ref++];
  }
  return op === outLen ? out : undefined;
}
