/**
 * Random picks: HRANDFIELD, SRANDMEMBER and ZRANDMEMBER take uniform picks in SQL
 * (random-sql.ts: what each form costs); SPOP probes the (key, h) index at a random h, which
 * favours elements after wide gaps (set/functions.ts s_pop).
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { parseI64 } from '../args';

const kLongMax = 9223372036854775807n;
const kOutOfRange = new RespError('ERR value is out of range');
const kCountRange = new RespError('ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807');

export const randomH = (): number => Math.floor(Math.random() * 2147483648);

/**
 * The count of HRANDFIELD / ZRANDMEMBER / SRANDMEMBER in Redis's order of checks: an integer in
 * ±LONG_MAX, then the syntax of what follows, then (with values) ±LONG_MAX/2.
 */
export function parseRandCount(arg: Buffer, syntaxError: boolean, withValues: boolean): number | RespError {
  const v = parseI64(arg);
  if (v === undefined) return Err.notInteger;
  if (v < -kLongMax) return kCountRange;
  if (syntaxError) return Err.syntax;
  if (withValues && (v < -kLongMax / 2n || v > kLongMax / 2n)) return kOutOfRange;
  // beyond 2^53 a positive count means "all of them" anyway
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return Number(v > max ? max : v < -max ? -max : v);
}
