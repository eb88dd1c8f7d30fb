/**
 * printf's "%.Nf" for doubles, exact as glibc prints it: the value's exact binary expansion
 * rounded to N decimals, half to even. Number#toFixed rounds ties away from zero (0.0078125 →
 * "0.007813", glibc "0.007812") and gives up past 1e21. Geo replies print "%.4f" (distances),
 * "%.17Lf" without trailing zeros (coordinates) and "%f" (the bad-coordinates error).
 */
const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

export function fixed(x: number, digits: number): string {
  if (Number.isNaN(x)) return isNegativeNaN(x) ? '-nan' : 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  f64[0] = x;
  const bits = u64[0];
  const neg = bits >> 63n === 1n;
  const exp = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  if (exp !== 0) mant |= 1n << 52n;
  const e = (exp === 0 ? 1 : exp) - 1075; // x = mant · 2^e
  const scale = 10n ** BigInt(digits);
  let q: bigint;
  if (e >= 0) q = (mant << BigInt(e)) * scale;
  else {
    const den = 1n << BigInt(-e);
    const num = mant * scale;
    q = num / den;
    const r2 = (num % den) * 2n;
    if (r2 > den || (r2 === den && (q & 1n) === 1n)) q += 1n;
  }
  let s = q.toString().padStart(digits + 1, '0');
  if (digits > 0) s = `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
  return neg ? `-${s}` : s;
}

function isNegativeNaN(x: number): boolean {
  f64[0] = x;
  return u64[0] >> 63n === 1n;
}

/** Redis's LD_STR_HUMAN: "%.17Lf" without trailing zeros (nor a trailing dot); "-0" is "0" */
export function human(x: number): string {
  let s = fixed(x, 17);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s === '-0' ? '0' : s;
}
