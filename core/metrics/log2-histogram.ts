/**
 * Power-of-two buckets, as Redis's LATENCY HISTOGRAM reports them: bucket i counts values in
 * (2^(i-1), 2^i]. Plain number arrays so they cross the worker boundary by structured clone.
 * 32 buckets reach 2^31 µs (35 minutes) or batches of 2^31 commands.
 */
export const kBuckets = 32;

export function newHistogram(): number[] {
  return new Array<number>(kBuckets).fill(0);
}

export function bucketOf(v: number): number {
  if (v <= 1) return 0;
  const b = 32 - Math.clz32(Math.ceil(v) - 1);
  return b >= kBuckets ? kBuckets - 1 : b;
}

export function record(h: number[], v: number): void {
  h[bucketOf(v)]++;
}

export function mergeInto(into: number[], from: number[]): void {
  for (let i = 0; i < kBuckets; i++) into[i] += from[i] ?? 0;
}

export function total(h: number[]): number {
  let n = 0;
  for (const c of h) n += c;
  return n;
}

/** Upper bound of the bucket holding quantile q (0..1), like Redis's latencystats precision. */
export function quantile(h: number[], q: number): number {
  const n = total(h);
  if (n === 0) return 0;
  const want = Math.max(1, Math.ceil(q * n));
  let seen = 0;
  for (let i = 0; i < kBuckets; i++) {
    seen += h[i];
    if (seen >= want) return 2 ** i;
  }
  return 2 ** (kBuckets - 1);
}
