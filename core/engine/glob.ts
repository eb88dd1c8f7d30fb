/**
 * Redis's glob (stringmatchlen): * ? [abc] [^a-z] and \ escapes, over bytes. Used by CONFIG GET,
 * and later KEYS / SCAN MATCH. Iterative with one backtrack point for '*', so a pattern like
 * "a*a*a*a*b" costs O(n·m) at worst instead of exponential time.
 */
export function globMatch(pattern: Buffer, s: Buffer, nocase = false): boolean {
  let p = 0;
  let i = 0;
  let starP = -1;
  let starI = 0;
  const fold = (c: number) => (nocase && c >= 65 && c <= 90 ? c + 32 : c);
  while (i < s.length) {
    if (p < pattern.length) {
      const pc = pattern[p];
      if (pc === 42 /* * */) {
        while (p < pattern.length && pattern[p] === 42) p++;
        if (p === pattern.length) return true;
        starP = p;
        starI = i;
        continue;
      }
      if (pc === 63 /* ? */) { p++; i++; continue; }
      if (pc === 91 /* [ */) {
        const r = matchClass(pattern, p + 1, fold(s[i]), fold);
        if (r.matched) { p = r.next; i++; continue; }
      } else {
        let lit = pc;
        let next = p + 1;
        if (pc === 92 /* \ */ && p + 1 < pattern.length) { lit = pattern[p + 1]; next = p + 2; }
        if (fold(lit) === fold(s[i])) { p = next; i++; continue; }
      }
    }
    if (starP < 0) return false;
    p = starP;
    i = ++starI;
  }
  while (p < pattern.length && pattern[p] === 42) p++;
  return p === pattern.length;
}

function matchClass(pat: Buffer, p: number, c: number, fold: (c: number) => number): { matched: boolean; next: number } {
  let not = false;
  if (pat[p] === 94 /* ^ */) { not = true; p++; }
  let matched = false;
  while (p < pat.length && pat[p] !== 93 /* ] */) {
    if (pat[p] === 92 && p + 1 < pat.length) {
      p++;
      if (fold(pat[p]) === c) matched = true;
    } else if (p + 2 < pat.length && pat[p + 1] === 45 /* - */ && pat[p + 2] !== 93) {
      let lo = fold(pat[p]);
      let hi = fold(pat[p + 2]);
      if (lo > hi) [lo, hi] = [hi, lo];
      if (c >= lo && c <= hi) matched = true;
      p += 2;
    } else if (fold(pat[p]) === c) {
      matched = true;
    }
    p++;
  }
  // an unterminated class: Redis treats the end of the pattern as its end
  return { matched: not ? !matched : matched, next: p < pat.length ? p + 1 : p };
}
