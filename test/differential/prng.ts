/**
 * A tiny seeded PRNG (mulberry32) so a differential run is reproducible from its seed alone.
 * No dependency: fast-check would shrink, but a failing sequence here is already printed with
 * the commands around the first mismatch, which is what one needs to turn it into a unit test.
 */
export class Rng {
  private state: number;
  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  between(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
  /** An independent stream for one part of a run: adding draws elsewhere does not shift it. */
  fork(label: string): Rng {
    let h = this.seed ^ 0x9e3779b9;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
    return new Rng(h >>> 0);
  }
}

/** DIFF_SEED=n reruns a failure; the default is fixed so CI is deterministic. */
export function seedFromEnv(fallback: number): number {
  const s = process.env.DIFF_SEED;
  if (s === undefined || s === '') return fallback;
  const n = Number(s);
  if (!Number.isInteger(n)) throw new Error(`DIFF_SEED must be an integer, got ${JSON.stringify(s)}`);
  return n >>> 0;
}
