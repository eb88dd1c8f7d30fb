/**
 * The timeout argument of the blocking commands, as redis-server 7.0.15 reads it: seconds as a C
 * long double (strtold: hex floats, "inf", exponents up to ~1.19e4932), then ceil(seconds * 1000)
 * milliseconds cast to long long. 0 (and anything in (-0.001, 0]) blocks forever; 0.0001 is 1 ms.
 * Observed on redis-server 7.0.15, reproduced here:
 *
 *   "abc" "" " 1" "1e" "nan" "1.2e4932" "1e-5000"  → ERR timeout is not a float or out of range
 *   "-1" "inf" "1e16" "1e400"                        → ERR timeout is negative (≥ 2^63 ms wraps
 *                                                       negative in the cast, as on x86)
 *   "0" "-0.0001"                                    → forever
 *
 * A double stands in for the long double: it differs only past 2^53 ms (285,000 years).
 */
import { RespError } from '../../reply';
import { strtod } from '../collection/strtod';

export const kTimeoutNotFloat = new RespError('ERR timeout is not a float or out of range');
export const kTimeoutNegative = new RespError('ERR timeout is negative');

/** Redis's MAX_LONG_DOUBLE_CHARS */
const kMaxChars = 5 * 1024;
/** log10 of LDBL_MAX (1.18973e4932) and of the smallest long double denormal (3.6e-4951) */
const kLdblMaxExp10 = 4932.0754;
const kLdblMinExp10 = -4950.44;

/** Milliseconds to wait (0 = forever), or Redis's error. */
export function parseTimeout(b: Buffer): number | RespError {
  if (b.length === 0 || b.length > kMaxChars || isSpace(b[0])) return kTimeoutNotFloat;
  const r = strtod(b);
  if (r.end !== b.length || Number.isNaN(r.value)) return kTimeoutNotFloat;
  let seconds = r.value;
  if (r.erange) {
    // out of a double's range: a long double may still hold it
    const e = decimalExponent(b);
    if (e === undefined || e >= kLdblMaxExp10 || e <= kLdblMinExp10) return kTimeoutNotFloat;
    if (seconds === 0) seconds = b[0] === 45 ? -Number.MIN_VALUE : Number.MIN_VALUE; // - sign
  }
  const ms = Math.ceil(seconds * 1000);
  // (long long) of a value ≥ 2^63 is LLONG_MIN on x86: "negative"
  if (!(ms < 2 ** 63) || ms < 0) return kTimeoutNegative;
  return ms === 0 ? 0 : ms; // -0 → 0
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** log10 of a decimal literal's magnitude (digits, point, exponent), undefined for hex. */
function decimalExponent(b: Buffer): number | undefined {
  const m = /^[+-]?(\d*)\.?(\d*)(?:[eE]([+-]?\d+))?$/.exec(b.toString('latin1'));
  if (m === null) return undefined;
  const digits = (m[1] + m[2]).replace(/^0+/, '');
  if (digits === '') return undefined;
  const lead = Number(`0.${digits.slice(0, 17)}`);
  const intDigits = m[1].replace(/^0+/, '').length;
  const shift = intDigits > 0 ? intDigits : -(m[2].length - m[2].replace(/^0+/, '').length);
  return Math.log10(lead) + shift + Number(m[3] ?? 0);
}
