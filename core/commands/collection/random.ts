/**
 * Random picks for HRANDFIELD, SRANDMEMBER, SPOP, ZRANDMEMBER: a random h in [0, 2^31) probes the
 * (key, h) index; the element with the next h (wrapping) is the pick. O(log n) per pick; each
 * element's chance is the gap before its h, so picks are fair only up to that spacing, like
 * Redis's own dictGetFairRandomKey.
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { parseI64 } from '../args';

const kLongMax = 9223372036854775807n;
const kOutOfRange = new RespError('ERR value is out of range');
const kCountRange = new RespError('ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807');

export const randomH = (): number => Math.floor(Math.random() * 2147483648);

export function randomHs(n: number): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = randomH();
  return out;
}

/** Fisher–Yates in place: a run of neighbours in h order comes back in random order. */
export function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

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
