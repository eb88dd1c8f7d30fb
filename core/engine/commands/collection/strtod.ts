/**
 * glibc strtod over bytes (C locale), so score and range arguments accept exactly what Redis
 * accepts: leading white space, a sign, "inf"/"infinity", "nan", hex floats ("0x1.8p1"), and
 * decimal with an exponent. Decimal literals go through Number(), which rounds correctly, as
 * glibc does; hex literals are rounded here (BigInt mantissa, half to even).
 */
export interface Strtod {
  value: number;
  /** offset of the first byte not consumed (0 = nothing parsed) */
  end: number;
  /** glibc's ERANGE: overflow to ±inf or a non-zero literal rounded to 0 */
  erange: boolean;
}

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);
const isDigit = (c: number) => c >= 48 && c <= 57;
const hexVal = (c: number) => (isDigit(c) ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1);
const lowerAt = (b: Buffer, i: number) => (i < b.length ? b[i] | 0x20 : 0);

function matchWord(b: Buffer, at: number, word: string): boolean {
  for (let i = 0; i < word.length; i++) if (lowerAt(b, at + i) !== word.charCodeAt(i)) return false;
  return true;
}

export function strtod(b: Buffer): Strtod {
  let i = 0;
  while (i < b.length && isSpace(b[i])) i++;
  let neg = false;
  if (b[i] === 43 || b[i] === 45) { neg = b[i] === 45; i++; } // + -
  const sign = neg ? -1 : 1;
  if (matchWord(b, i, 'inf')) {
    const end = matchWord(b, i, 'infinity') ? i + 8 : i + 3;
    return { value: sign * Infinity, end, erange: false };
  }
  if (matchWord(b, i, 'nan')) {
    let end = i + 3;
    if (b[end] === 40) { // ( n-char-sequence )
      let j = end + 1;
      while (j < b.length && (isDigit(b[j]) || ((b[j] | 0x20) >= 97 && (b[j] | 0x20) <= 122) || b[j] === 95)) j++;
      if (b[j] === 41) end = j + 1;
    }
    return { value: NaN, end, erange: false };
  }
  if (b[i] === 48 && (b[i + 1] | 0x20) === 120) { // 0x
    const hex = parseHex(b, i + 2, sign);
    if (hex !== undefined) return hex;
  }
  const digitsFrom = i;
  let digits = 0;
  let nonZero = false;
  while (isDigit(b[i])) { digits++; nonZero ||= b[i] !== 48; i++; }
  if (b[i] === 46) { // .
    i++;
    while (isDigit(b[i])) { digits++; nonZero ||= b[i] !== 48; i++; }
  }
  if (digits === 0) return { value: 0, end: 0, erange: false };
  if ((b[i] | 0x20) === 101) { // e
    let j = i + 1;
    if (b[j] === 43 || b[j] === 45) j++;
    if (isDigit(b[j])) {
      while (isDigit(b[j])) j++;
      i = j;
    }
  }
  const value = sign * Number(b.toString('latin1', digitsFrom, i));
  const erange = !Number.isFinite(value) || (value === 0 && nonZero);
  return { value, end: i, erange };
}

/** "0x" seen at from-2; undefined when no hex digit follows (strtod then parses the "0"). */
function parseHex(b: Buffer, from: number, sign: number): Strtod | undefined {
  let i = from;
  let mant = 0n;
  let exp = 0;
  let digits = 0;
  while (hexVal(b[i]) >= 0) { mant = mant * 16n + BigInt(hexVal(b[i])); digits++; i++; }
  if (b[i] === 46) {
    i++;
    while (hexVal(b[i]) >= 0) { mant = mant * 16n + BigInt(hexVal(b[i])); exp -= 4; digits++; i++; }
  }
  if (digits === 0) return undefined;
  if ((b[i] | 0x20) === 112) { // p
    let j = i + 1;
    let eneg = false;
    if (b[j] === 43 || b[j] === 45) { eneg = b[j] === 45; j++; }
    if (isDigit(b[j])) {
      let e = 0;
      while (isDigit(b[j])) { e = Math.min(e * 10 + b[j] - 48, 1e6); j++; }
      exp += eneg ? -e : e;
      i = j;
    }
  }
  const value = sign * scaleToDouble(mant, exp);
  return { value, end: i, erange: !Number.isFinite(value) || (value === 0 && mant !== 0n) };
}

/** mant · 2^exp rounded to the nearest double, ties to even (subnormals included). */
export function scaleToDouble(mant: bigint, exp: number): number {
  if (mant === 0n) return 0;
  const bits = mant.toString(2).length;
  const top = bits - 1 + exp; // value in [2^top, 2^(top+1))
  if (top > 1023) return Infinity;
  const precision = top >= -1022 ? 53 : 53 - (-1022 - top);
  if (precision <= 0) {
    // below half the smallest subnormal rounds to 0; exactly half rounds to even (0)
    return precision === 0 && mant > 1n << BigInt(bits - 1) ? 2 ** -1074 : 0;
  }
  const shift = bits - precision;
  let m = mant;
  if (shift > 0) {
    const rem = m & ((1n << BigInt(shift)) - 1n);
    m >>= BigInt(shift);
    const half = 1n << BigInt(shift - 1);
    if (rem > half || (rem === half && (m & 1n) === 1n)) m += 1n;
  } else {
    m <<= BigInt(-shift);
  }
  const e = exp + shift;
  // two steps: 2^e alone may underflow or overflow where the product does not
  const half = Math.trunc(e / 2);
  return Number(m) * 2 ** half * 2 ** (e - half);
}

/** Redis string2d: the whole argument, no leading space, no NaN, no overflow or underflow to 0. */
export function string2d(b: Buffer): number | undefined {
  if (b.length === 0 || isSpace(b[0])) return undefined;
  const r = strtod(b);
  if (r.end !== b.length || Number.isNaN(r.value)) return undefined;
  if (r.erange && (!Number.isFinite(r.value) || r.value === 0)) return undefined;
  return r.value;
}

/**
 * What `strtod(s, &eptr); if (eptr[0] != '\0' || isnan(v))` accepts (zslParseRange, ZRANGE's
 * score bounds): leading space allowed, the argument ends at its first NUL, "" is 0.
 */
export function cStrtod(b: Buffer, from = 0): number | undefined {
  const s = from === 0 ? b : b.subarray(from);
  const r = strtod(s);
  if (r.end !== s.length && s[r.end] !== 0) return undefined;
  if (Number.isNaN(r.value)) return undefined;
  return r.value;
}
