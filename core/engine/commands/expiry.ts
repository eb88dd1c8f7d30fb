/**
 * EX / PX / EXAT / PXAT arguments → absolute Unix ms, with Redis's checks: a non-integer gets
 * "value is not an integer", zero/negative or overflowing times get "invalid expire time in '<cmd>'".
 */
import { RespError } from '../reply';
import { Err } from '../resp-errors';
import { parseI64 } from './args';

export type ExpireUnit = 'ex' | 'px' | 'exat' | 'pxat';
const kI64Max = 9223372036854775807n;

export function expireAt(unit: ExpireUnit, arg: Buffer, cmd: string, now = Date.now()): number | RespError {
  const v = parseI64(arg);
  if (v === undefined) return Err.notInteger;
  if (v <= 0n) return Err.invalidExpire(cmd);
  const seconds = unit === 'ex' || unit === 'exat';
  if (seconds && v > kI64Max / 1000n) return Err.invalidExpire(cmd);
  let ms = seconds ? v * 1000n : v;
  if (unit === 'ex' || unit === 'px') {
    if (ms > kI64Max - BigInt(now)) return Err.invalidExpire(cmd);
    ms += BigInt(now);
  }
  // stored as bigint in Postgres; JS numbers are exact to 2^53 ms (year 285,000)
  return ms > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(ms);
}
