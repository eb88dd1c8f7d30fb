/**
 * Which register an element sets, and to what: Redis's hllPatLen. The hash is MurmurHash64A
 * (Austin Appleby's 64-bit variant, little-endian blocks) with seed 0xadc83b19, as Redis hashes;
 * the low 14 bits pick one of 16384 registers, the run of zero bits above them (plus one, at most
 * 51) is the count. 64-bit products are built from 32-bit halves: BigInt cost ~10× per element.
 */
const kMulHi = 0xc6a4a793;
const kMulLo = 0x5bd1e995;
const kSeed = 0xadc83b19;
export const kRegisters = 16384;
const kIndexBits = 14;

let hi = 0;
let lo = 0;

/** (hi, lo) := (ah, al) × m mod 2^64 */
function mulM(ah: number, al: number): void {
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = kMulLo & 0xffff;
  const b1 = kMulLo >>> 16;
  // high 32 bits of al × kMulLo, exact: the middle partial products stay below 2^34
  const mid = a0 * b1 + a1 * b0 + ((a0 * b0) >>> 16);
  const carry = a1 * b1 + Math.floor(mid / 65536);
  lo = Math.imul(al, kMulLo) >>> 0;
  hi = (carry + Math.imul(ah, kMulLo) + Math.imul(al, kMulHi)) >>> 0;
}

/** MurmurHash64A(b, seed 0xadc83b19) into the module's (hi, lo) */
function murmur64a(b: Buffer): void {
  const len = b.length;
  mulM(0, len);
  let h1 = hi;
  let h0 = (lo ^ kSeed) >>> 0;
  const blocks = len - (len & 7);
  for (let i = 0; i < blocks; i += 8) {
    mulM(b.readUInt32LE(i + 4), b.readUInt32LE(i));
    let kh = hi;
    let kl = (lo ^ (hi >>> 15)) >>> 0; // k ^= k >> 47
    mulM(kh, kl);
    kh = hi; kl = lo;
    mulM((h1 ^ kh) >>> 0, (h0 ^ kl) >>> 0);
    h1 = hi; h0 = lo;
  }
  const tail = len & 7;
  if (tail > 0) {
    for (let j = tail - 1; j >= 0; j--) {
      const byte = b[blocks + j];
      if (j >= 4) h1 = (h1 ^ (byte << ((j - 4) * 8))) >>> 0;
      else h0 = (h0 ^ (byte << (j * 8))) >>> 0;
    }
    mulM(h1, h0);
    h1 = hi; h0 = lo;
  }
  h0 = (h0 ^ (h1 >>> 15)) >>> 0;
  mulM(h1, h0);
  h1 = hi; h0 = lo;
  hi = h1;
  lo = (h0 ^ (h1 >>> 15)) >>> 0;
}

/** The element's register index and count, packed as index << 6 | count (count ≤ 51). */
export function registerOp(element: Buffer): number {
  murmur64a(element);
  const index = lo & (kRegisters - 1);
  const low = lo >>> kIndexBits; // hash bits 14..31
  let count: number;
  if (low !== 0) count = 32 - Math.clz32(low & -low);
  else if (hi !== 0) count = 32 - kIndexBits + 32 - Math.clz32(hi & -hi);
  else count = 64 - kIndexBits + 1;
  return (index << 6) | count;
}

/** The 64-bit hash as a bigint (tests compare it with known values). */
export function murmurHash(element: Buffer): bigint {
  murmur64a(element);
  return (BigInt(hi) << 32n) | BigInt(lo);
}
