// Redis util.c string2ll over raw bytes, so limits reject exactly what Redis rejects:
// no sign but '-', no leading zeros, no spaces, at most 20 bytes, within long long.

import { DIGIT_0, DIGIT_1, DIGIT_9, MINUS, kLongStrSize } from './constants';

const kLLongMax = 9223372036854775807n;
const kLLongMinMagnitude = 9223372036854775808n;
/** 15 decimal digits always fit a double exactly (2^53 has 16). */
const kExactDigits = 15;

/**
 * Parses buf[start, end) like string2ll. Returns NaN where Redis returns 0 (invalid).
 * Values beyond 2^53 come back rounded to the nearest double: callers only compare them
 * with limits (INT_MAX, proto-max-bulk-len), which they exceed either way.
 */
export function string2ll(buf: Uint8Array, start: number, end: number): number {
  const len = end - start;
  if (len <= 0 || len >= kLongStrSize) return NaN;
  if (len === 1 && buf[start] === DIGIT_0) return 0;
  let p = start;
  const negative = buf[p] === MINUS;
  if (negative && ++p === end) return NaN;
  const first = buf[p];
  if (first < DIGIT_1 || first > DIGIT_9) return NaN;
  let v = 0;
  for (; p < end; p++) {
    const c = buf[p];
    if (c < DIGIT_0 || c > DIGIT_9) return NaN;
    v = v * 10 + (c - DIGIT_0);
  }
  const digits = end - start - (negative ? 1 : 0);
  if (digits <= kExactDigits) return negative ? -v : v;
  let big = 0n;
  for (p = negative ? start + 1 : start; p < end; p++) big = big * 10n + BigInt(buf[p] - DIGIT_0);
  if (big > (negative ? kLLongMinMagnitude : kLLongMax)) return NaN;
  return negative ? -Number(big) : Number(big);
}
