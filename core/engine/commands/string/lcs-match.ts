/**
 * The longest common subsequence of two byte strings and its matching ranges: Redis's
 * lcsCommand (t_string.c) ported step for step — the same DP table and the same backward walk —
 * so the string chosen among equal-length answers and the ranges reported are Redis's.
 */
export interface LcsRange { a: [number, number]; b: [number, number]; len: number }

export interface LcsResult { len: number; lcs: Buffer; ranges: LcsRange[] }

/** Bytes of the DP table, for the proto-max-bulk-len guard (Redis: (alen+1)·(blen+1)·4). */
export function lcsTableBytes(a: Buffer, b: Buffer): number {
  return (a.length + 1) * (b.length + 1) * 4;
}

export function lcs(a: Buffer, b: Buffer, minMatchLen: number, wantRanges: boolean): LcsResult {
  const alen = a.length;
  const blen = b.length;
  const w = blen + 1;
  // entries never exceed min(alen, blen): 16-bit cells halve the memory when they fit
  const t = Math.min(alen, blen) < 65536 ? new Uint16Array((alen + 1) * w) : new Uint32Array((alen + 1) * w);
  for (let i = 1; i <= alen; i++) {
    for (let j = 1; j <= blen; j++) {
      if (a[i - 1] === b[j - 1]) t[i * w + j] = t[(i - 1) * w + j - 1] + 1;
      else {
        const l1 = t[(i - 1) * w + j];
        const l2 = t[i * w + j - 1];
        t[i * w + j] = l1 > l2 ? l1 : l2;
      }
    }
  }
  const len = t[alen * w + blen];
  const out = Buffer.allocUnsafe(len);
  const ranges: LcsRange[] = [];
  let idx = len;
  let aStart = alen; // alen = no range being tracked
  let aEnd = 0;
  let bStart = 0;
  let bEnd = 0;
  let i = alen;
  let j = blen;
  while (i > 0 && j > 0) {
    let emit = false;
    if (a[i - 1] === b[j - 1]) {
      out[idx - 1] = a[i - 1];
      if (aStart === alen) {
        aStart = aEnd = i - 1;
        bStart = bEnd = j - 1;
      } else if (aStart === i && bStart === j) {
        aStart--;
        bStart--;
      } else emit = true;
      if (aStart === 0 || bStart === 0) emit = true;
      idx--; i--; j--;
    } else {
      if (t[(i - 1) * w + j] > t[i * w + j - 1]) i--;
      else j--;
      if (aStart !== alen) emit = true;
    }
    const matchLen = aEnd - aStart + 1;
    if (emit) {
      if (wantRanges && (minMatchLen === 0 || matchLen >= minMatchLen)) {
        ranges.push({ a: [aStart, aEnd], b: [bStart, bEnd], len: matchLen });
      }
      aStart = alen;
    }
  }
  return { len, lcs: out, ranges };
}
