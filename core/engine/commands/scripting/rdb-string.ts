/**
 * Reading the length-prefixed strings of Redis's RDB format (rdbLoadLen, with the integer and
 * LZF-compressed encodings Redis writes) for FUNCTION RESTORE payloads. Writing lengths, LZF and
 * the CRC-64 footer are DUMP/RESTORE's (../dump/rdb.ts saveLen, ../dump/lzf.ts, ../dump/crc64.ts).
 */
import { lzfDecompress } from '../dump/lzf';

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
