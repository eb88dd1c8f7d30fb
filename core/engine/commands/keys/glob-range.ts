/**
 * The key range a glob pattern can match: its literal prefix (up to the first * ? [, with \x
 * read as x) gives `key >= prefix AND key < next(prefix)` — exact on bytea, whose order is
 * memcmp's, so binary keys are safe. The pattern itself is still matched with globMatch.
 */
export interface KeyRange {
  from: Buffer;
  /** exclusive upper bound; undefined = none */
  to: Buffer | undefined;
}

const kStar = 42; // *
const kQuestion = 63; // ?
const kBracket = 91; // [
const kBackslash = 92; // \

export function globPrefix(pattern: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === kStar || c === kQuestion || c === kBracket) break;
    if (c === kBackslash) {
      if (i + 1 >= pattern.length) break;
      out.push(pattern[++i]);
    } else out.push(c);
  }
  return Buffer.from(out);
}

/** The smallest byte string greater than every string starting with prefix (none for "" or ff…ff). */
export function prefixEnd(prefix: Buffer): Buffer | undefined {
  let n = prefix.length;
  while (n > 0 && prefix[n - 1] === 0xff) n--;
  if (n === 0) return undefined;
  const out = Buffer.from(prefix.subarray(0, n));
  out[n - 1]++;
  return out;
}

export function globRange(pattern: Buffer): KeyRange {
  const from = globPrefix(pattern);
  return { from, to: prefixEnd(from) };
}

/** "*" alone matches everything: no per-key matching needed (Redis: use_pattern = 0). */
export function matchesAll(pattern: Buffer): boolean {
  return pattern.length === 1 && pattern[0] === kStar;
}
