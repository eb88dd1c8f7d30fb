// Doubles formatted like Redis 7.0's addReplyDouble: printf("%.17g"), with inf/-inf spelled out.
// redis-server 7.0.15 here: ZSCORE of 1.1 is "1.1000000000000001", of 1e17 "1e+17", of 1e16
// "10000000000000000", of 0.00001 "1.0000000000000001e-05", of -0 "0". (Redis 7.2 switched to
// the shortest round-trip form; differential tests run against 7.0, so we follow 7.0.)

const kPrecision = 17;
/** %g uses exponent notation when the decimal exponent is below -4 or at least the precision. */
const kMinFixedExponent = -4;

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** Exact value of a finite positive double as mantissa * 2^exp. */
function decompose(x: number): [bigint, bigint] {
  f64[0] = x;
  const bits = u64[0];
  const biased = (bits >> 52n) & 0x7ffn;
  const fraction = bits & 0xfffffffffffffn;
  if (biased === 0n) return [fraction, -1074n];
  return [fraction | 0x10000000000000n, biased - 1075n];
}

/** true when |x| equals digits * 10^exp exactly (a tie at 17 digits is an exact 18-digit value). */
function isExactly(x: number, digits: bigint, exp: number): boolean {
  const [m, e2] = decompose(x);
  let left = digits;
  let right = m;
  if (exp >= 0) left *= 10n ** BigInt(exp);
  else right *= 10n ** BigInt(-exp);
  if (e2 >= 0n) right <<= e2;
  else left <<= -e2;
  return left === right;
}

/**
 * 17 significant digits of |x| and its decimal exponent, rounded half to even as glibc does.
 * toExponential is correctly rounded but breaks ties away from zero, so an exact tie
 * (1125899906842624.25 → ...624.2 in C, ...624.3 in JS) is corrected here.
 */
function digits17(x: number): [string, number] {
  const s = x.toExponential(kPrecision - 1);
  const e = s.indexOf('e');
  let digits = s[0] + s.slice(2, e);
  let exp = Number(s.slice(e + 1));
  const wide = x.toExponential(kPrecision);
  const we = wide.indexOf('e');
  if (wide[we - 1] === '5') {
    const wideDigits = BigInt(wide[0] + wide.slice(2, we));
    const wideExp = Number(wide.slice(we + 1)) - kPrecision;
    const down = wideDigits / 10n;
    if (down % 2n === 0n && isExactly(x, wideDigits, wideExp)) {
      digits = down.toString();
      exp = Number(wide.slice(we + 1));
    }
  }
  return [digits, exp];
}

function stripZeros(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 48) end--; // 0
  return s.slice(0, end);
}

/** printf("%.17g", x) for finite x, then "inf", "-inf", "nan" like Redis. */
export function formatDouble(x: number): string {
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x !== x) return 'nan';
  // Integers below 2^53 print exactly with %.17g, and String() gives the same digits.
  if (Number.isSafeInteger(x)) return String(x);
  const sign = x < 0 ? '-' : '';
  const [digits, exp] = digits17(Math.abs(x));
  if (exp < kMinFixedExponent || exp >= kPrecision) {
    const frac = stripZeros(digits.slice(1));
    const e = Math.abs(exp);
    return `${sign}${digits[0]}${frac ? '.' + frac : ''}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${stripZeros(digits)}`;
  const int = digits.slice(0, exp + 1);
  const frac = stripZeros(digits.slice(exp + 1));
  return `${sign}${int}${frac ? '.' + frac : ''}`;
}
