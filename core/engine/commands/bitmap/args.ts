/**
 * The bitmap commands' argument rules (Redis 7.0's bitops.c): bit offsets bounded by
 * proto-max-bulk-len (a byte offset at or past it is refused), BITFIELD's `#n` offsets (n times
 * the field's width, in int64 arithmetic as C does it), and BITFIELD's types i1…i64, u1…u63.
 */
import { RespError } from '../../reply';
import { parseI64 } from '../args';

export const kBadOffset = new RespError('ERR bit offset is not an integer or out of range');
export const kBadType = new RespError('ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.');

/**
 * A bit offset (getBitOffsetFromArgument): `hash` allows `#n` = n × bits. Negative, or a byte
 * offset ≥ maxBulk (proto-max-bulk-len): refused.
 */
export function bitOffset(b: Buffer, maxBulk: number, bits = 0): bigint | RespError {
  const hash = bits > 0 && b[0] === 0x23; // '#'
  let v = parseI64(hash ? b.subarray(1) : b);
  if (v === undefined) return kBadOffset;
  if (hash) v = BigInt.asIntN(64, v * BigInt(bits)); // C's int64 multiplication wraps
  if (v < 0n || v >> 3n >= BigInt(maxBulk)) return kBadOffset;
  return v;
}

export interface FieldType { signed: boolean; bits: number }

/** i<n> (1…64) or u<n> (1…63); the digits end at a NUL byte, as C's strlen sees them */
export function fieldType(b: Buffer): FieldType | RespError {
  const sign = b[0];
  if (sign !== 0x69 && sign !== 0x75) return kBadType; // 'i' | 'u'
  const nul = b.indexOf(0, 1);
  const n = parseI64(b.subarray(1, nul < 0 ? b.length : nul));
  const signed = sign === 0x69;
  if (n === undefined || n < 1n || n > (signed ? 64n : 63n)) return kBadType;
  return { signed, bits: Number(n) };
}
