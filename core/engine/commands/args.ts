/**
 * Argument parsing with Redis's rules (string2ll): optional '-', digits, no '+', no leading zeros,
 * no spaces, within int64; case-insensitive option words (`lower`, `eqIgnoreCase`).
 */
const kMinus = 45; // -
const kZero = 48; // 0
const kNine = 57; // 9
const kI64Max = 9223372036854775807n;
const kI64Min = -9223372036854775808n;

/** int64 as bigint, or undefined when Redis would say "not an integer or out of range". */
export function parseI64(b: Buffer): bigint | undefined {
  const n = b.length;
  if (n === 0 || n > 20) return undefined;
  let i = 0;
  const neg = b[0] === kMinus;
  if (neg) { if (n === 1) return undefined; i = 1; }
  if (b[i] === kZero && n > i + 1) return undefined;
  if (b[i] === kZero && neg) return undefined;
  // up to 15 digits fit a double exactly: parse as a number, the common case
  if (n - i <= 15) {
    let v = 0;
    for (; i < n; i++) {
      const c = b[i];
      if (c < kZero || c > kNine) return undefined;
      v = v * 10 + (c - kZero);
    }
    return BigInt(neg ? -v : v);
  }
  for (let j = i; j < n; j++) if (b[j] < kZero || b[j] > kNine) return undefined;
  const v = BigInt(b.toString('latin1'));
  return v > kI64Max || v < kI64Min ? undefined : v;
}

/** A safe JS integer (|n| < 2^53) under Redis's rules; undefined otherwise. */
export function parseInt53(b: Buffer): number | undefined {
  const v = parseI64(b);
  if (v === undefined) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

export function lower(b: Buffer): string {
  return b.toString('latin1').toLowerCase();
}

export function eqIgnoreCase(b: Buffer, word: string): boolean {
  if (b.length !== word.length) return false;
  for (let i = 0; i < b.length; i++) {
    let c = b[i];
    if (c >= 65 && c <= 90) c += 32;
    if (c !== word.charCodeAt(i)) return false;
  }
  return true;
}
