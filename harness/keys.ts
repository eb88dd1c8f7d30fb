// Seeded random numbers and the key distributions of --key-pattern. Each client owns its own
// generator, so threads never share state and a --seed run is repeatable per client.

import type { KeyPattern } from './options';

/** xoshiro128** (Blackman & Vigna): 32-bit operations only, fast in V8. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // splitmix32 spreads one seed over the four state words.
    let s = seed >>> 0;
    const mix = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = mix();
    this.b = mix();
    this.c = mix();
    this.d = mix() | 1;
  }

  nextU32(): number {
    const r = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return r;
  }

  /** Uniform in [0, 1) with 32 bits. */
  float(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform in [0, 1) with 53 bits, for keyspaces beyond 2^32. */
  float53(): number {
    return ((this.nextU32() >>> 5) * 67108864 + (this.nextU32() >>> 6)) / 9007199254740992;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

export interface KeyGen {
  /** Next key number in [0, keyspace). */
  next(): number;
}

class UniformKeys implements KeyGen {
  private readonly wide: boolean;
  constructor(private readonly rng: Rng, private readonly n: number) {
    this.wide = n > 2 ** 32;
  }
  next(): number {
    return Math.floor((this.wide ? this.rng.float53() : this.rng.float()) * this.n);
  }
}

/**
 * Zipf over ranks 1..n by rejection-inversion (Hörmann & Derflinger 1996, as in Apache Commons
 * RejectionInversionZipfSampler): O(1) set-up and sampling, unlike YCSB's O(n) zeta sum that
 * takes seconds for a keyspace of 10^8. Rank 1 (key 0) is the hottest.
 */
class ZipfKeys implements KeyGen {
  private readonly hX1: number;
  private readonly hN: number;
  private readonly sDiv: number;
  constructor(private readonly rng: Rng, private readonly n: number, private readonly exponent = 0.99) {
    this.hX1 = this.hIntegral(1.5) - 1;
    this.hN = this.hIntegral(n + 0.5);
    this.sDiv = 2 - this.hIntegralInverse(this.hIntegral(2.5) - this.h(2));
  }
  next(): number {
    for (;;) {
      const u = this.hN + this.rng.float53() * (this.hX1 - this.hN);
      const x = this.hIntegralInverse(u);
      let k = Math.floor(x + 0.5);
      if (k < 1) k = 1;
      else if (k > this.n) k = this.n;
      if (k - x <= this.sDiv || u >= this.hIntegral(k + 0.5) - this.h(k)) return k - 1;
    }
  }
  private h(x: number): number {
    return Math.exp(-this.exponent * Math.log(x));
  }
  private hIntegral(x: number): number {
    const logX = Math.log(x);
    return helper2((1 - this.exponent) * logX) * logX;
  }
  private hIntegralInverse(x: number): number {
    let t = x * (1 - this.exponent);
    if (t < -1) t = -1;
    return Math.exp(helper1(t) * x);
  }
}

function helper1(x: number): number {
  return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1 - x * (0.5 - x * (1 / 3 - 0.25 * x));
}

function helper2(x: number): number {
  return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1 + x * 0.5 * (1 + (x / 3) * (1 + 0.25 * x));
}

/** Normal around the middle of the keyspace, sigma = n/6 so 99.7% of draws fall inside. */
class GaussianKeys implements KeyGen {
  private spare = NaN;
  constructor(private readonly rng: Rng, private readonly n: number) {}
  next(): number {
    let z: number;
    if (!Number.isNaN(this.spare)) {
      z = this.spare;
      this.spare = NaN;
    } else {
      const u = 1 - this.rng.float53();
      const v = this.rng.float53();
      const r = Math.sqrt(-2 * Math.log(u));
      z = r * Math.cos(2 * Math.PI * v);
      this.spare = r * Math.sin(2 * Math.PI * v);
    }
    const k = Math.floor(this.n / 2 + z * (this.n / 6));
    return k < 0 ? 0 : k >= this.n ? this.n - 1 : k;
  }
}

/**
 * valkey's --sequential uses one global atomic counter; clients here step through the keyspace
 * interleaved (client i takes i, i+C, i+2C, …), which covers it the same way without sharing.
 */
class SequentialKeys implements KeyGen {
  private current: number;
  constructor(private readonly n: number, start: number, private readonly stride: number) {
    this.current = start % n;
  }
  next(): number {
    const k = this.current;
    this.current = (this.current + this.stride) % this.n;
    return k;
  }
}

/** exponent: zipf's s (--key-distribution zipf:<s>; 0.99 by default) */
export function keyGen(pattern: KeyPattern, rng: Rng, keyspace: number, clientIndex: number, totalClients: number, exponent = 0.99): KeyGen {
  const n = Math.max(1, keyspace);
  switch (pattern) {
    case 'uniform': return new UniformKeys(rng, n);
    case 'zipf': return new ZipfKeys(rng, n, exponent);
    case 'gaussian': return new GaussianKeys(rng, n);
    case 'sequential': return new SequentialKeys(n, clientIndex, Math.max(1, totalClients));
  }
}
