/**
 * Reading Redis's HyperLogLog strings in the worker (PFCOUNT of several keys, PFDEBUG): the
 * validity check, the registers of either encoding, and the estimate. Writing (PFADD, PFMERGE,
 * the cached cardinality) happens in Postgres, in ./functions.ts, where it is atomic.
 *
 *   header (16 bytes): "HYLL", encoding (0 dense, 1 sparse), 3 unused, cached cardinality as
 *                      8 bytes little-endian, the top bit of the last one set = not valid
 *   dense:  16384 registers of 6 bits, packed from the low bits of each byte up (12288 bytes)
 *   sparse: opcodes  00xxxxxx ZERO (1–64 zero registers), 01xxxxxx yyyyyyyy XZERO (1–16384),
 *                    1vvvvvxx VAL (value 1–32, run of 1–4)
 */
import { kRegisters } from './murmur';

export const kHeaderSize = 16;
export const kDenseSize = kHeaderSize + (kRegisters * 6) / 8;
const kMagic = 0x4c4c5948; // "HYLL" read little-endian
/** Redis's HLL_Q + 1: the largest count a register holds */
const kMaxCount = 51;

/** isHLLObjectOrReply's test of a string value */
export function isHll(v: Buffer): boolean {
  if (v.length < kHeaderSize || v.readUInt32LE(0) !== kMagic || v[4] > 1) return false;
  return v[4] === 1 || v.length === kDenseSize;
}

export const isSparse = (v: Buffer): boolean => v[4] === 1;

/** register i of a dense value */
export function denseRegister(v: Buffer, i: number): number {
  const at = kHeaderSize + ((i * 6) >> 3);
  const fb = (i * 6) & 7;
  const next = at + 1 < v.length ? v[at + 1] : 0;
  return ((v[at] >> fb) | (next << (8 - fb))) & 63;
}

/**
 * max[i] := max(max[i], register i of v) (hllMerge); false when a sparse value does not cover
 * exactly 16384 registers (Redis: INVALIDOBJ).
 */
export function mergeRegisters(max: Uint8Array, v: Buffer): boolean {
  if (!isSparse(v)) {
    for (let i = 0; i < kRegisters; i++) {
      const r = denseRegister(v, i);
      if (r > max[i]) max[i] = r;
    }
    return true;
  }
  // a run past the last register makes the value corrupted (Redis's fix of CVE-2025-32023)
  let i = 0;
  for (let p = kHeaderSize; p < v.length;) {
    const b = v[p];
    const zero = (b & 0x80) === 0;
    const run = (b & 0xc0) === 0 ? (b & 0x3f) + 1
      : (b & 0xc0) === 0x40 ? (((b & 0x3f) << 8) | (p + 1 < v.length ? v[p + 1] : 0)) + 1 : (b & 3) + 1;
    if (run + i > kRegisters) return false;
    if (zero) i += run;
    else for (const value = ((b >> 2) & 0x1f) + 1, end = i + run; i < end; i++) if (value > max[i]) max[i] = value;
    p += (b & 0xc0) === 0x40 ? 2 : 1;
  }
  return i === kRegisters;
}

/** The sparse opcodes as PFDEBUG DECODE prints them: "Z:16384", "z:3", "v:2,1" */
export function decodeSparse(v: Buffer): string {
  const out: string[] = [];
  for (let p = kHeaderSize; p < v.length;) {
    const b = v[p];
    if ((b & 0xc0) === 0) { out.push(`z:${(b & 0x3f) + 1}`); p++; } else if ((b & 0xc0) === 0x40) {
      out.push(`Z:${(((b & 0x3f) << 8) | (p + 1 < v.length ? v[p + 1] : 0)) + 1}`);
      p += 2;
    } else { out.push(`v:${((b >> 2) & 0x1f) + 1},${(b & 3) + 1}`); p++; }
  }
  return out.join(' ');
}

function sigma(x: number): number {
  if (x === 1) return Infinity;
  let y = 1;
  let z = x;
  for (let prev = NaN; prev !== z;) {
    x *= x;
    prev = z;
    z += x * y;
    y += y;
  }
  return z;
}

function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  for (let prev = NaN; prev !== z;) {
    x = Math.sqrt(x);
    prev = z;
    y *= 0.5;
    z -= (1 - x) * (1 - x) * y;
  }
  return z / 3;
}

/**
 * Redis's hllCount over registers: Otmar Ertl's estimator ("New cardinality estimation
 * algorithms for HyperLogLog sketches", 2017), rounded half away from zero (llroundl).
 */
export function estimate(registers: Uint8Array): number {
  const histo = new Array<number>(64).fill(0);
  for (let i = 0; i < kRegisters; i++) histo[registers[i]]++;
  const m = kRegisters;
  let z = m * tau((m - histo[kMaxCount]) / m);
  for (let j = kMaxCount - 1; j >= 1; j--) {
    z += histo[j];
    z *= 0.5;
  }
  z += m * sigma(histo[0] / m);
  const e = (0.72134752044448170368 * m * m) / z;
  const t = Math.trunc(e);
  return e - t >= 0.5 ? t + 1 : t;
}
