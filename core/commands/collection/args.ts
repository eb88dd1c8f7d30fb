/** Argument checks collection commands share, with Redis's texts. */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { parseI64 } from '../args';

const kLongMax = 9223372036854775807n;
const kMustBePositive = new RespError('ERR value is out of range, must be positive');

/**
 * getRangeLongFromObjectOrReply: with a message, that message for both a non-integer and a value
 * out of [min, max]; without, Redis's two default texts.
 */
export function rangeLong(b: Buffer, min: bigint, max: bigint, msg?: RespError): bigint | RespError {
  const v = parseI64(b);
  if (v === undefined) return msg ?? Err.notInteger;
  if (v < min || v > max) return msg ?? new RespError(`ERR value is out of range, value must between ${min} and ${max}`);
  return v;
}

/** getPositiveLongFromObjectOrReply: 0 … LONG_MAX */
export function positiveLong(b: Buffer, msg: RespError = kMustBePositive): bigint | RespError {
  return rangeLong(b, 0n, kLongMax, msg);
}

export { kLongMax };

/**
 * numkeys of SINTERCARD / LMPOP / ZMPOP / ZUNION…: 1 … LONG_MAX and no more than the arguments
 * after it; returns the count.
 */
export function parseNumKeys(argv: Buffer[], at: number, msg = 'numkeys should be greater than 0'): number | RespError {
  const n = rangeLong(argv[at], 1n, kLongMax, new RespError(`ERR ${msg}`));
  if (n instanceof RespError) return n;
  if (n > BigInt(argv.length - at - 1)) return new RespError('ERR Number of keys can\'t be greater than number of args');
  return Number(n);
}
