/**
 * Redis's geohash (geohash.c): coordinates interleaved into 52 bits — latitude bits at even
 * positions, longitude bits at odd ones, 26 steps each over longitude −180…180 and latitude
 * ±85.05112878 (the Web Mercator limit) — stored as the sorted-set score. Every operation below
 * is the same sequence of IEEE double operations as Redis's C, so scores and coordinates are
 * bit-identical. The searches (the 9 boxes and the distances) run in Postgres: ./functions.ts.
 */
export const kLonMin = -180;
export const kLonMax = 180;
export const kLatMin = -85.05112878;
export const kLatMax = 85.05112878;
const kStep = 26;

/** bits of x (< 2^27) spread to the even positions: bit i → bit 2i (exact below 2^54) */
function spread(x: number): number {
  let out = 0;
  let bit = 1;
  for (let i = 0; x > 0; i++, x = Math.floor(x / 2), bit *= 4) if (x % 2 === 1) out += bit;
  return out;
}

function interleave(lat: number, lon: number, step: number, latMin: number, latMax: number): number {
  const scale = 2 ** step;
  // C converts the offsets to uint32_t (truncation); a coordinate at the maximum reaches 2^step
  const latOff = Math.trunc(((lat - latMin) / (latMax - latMin)) * scale);
  const lonOff = Math.trunc(((lon - kLonMin) / (kLonMax - kLonMin)) * scale);
  // sum of two exact doubles, correctly rounded: what strtod makes of the uint64 Redis prints
  return spread(latOff) + 2 * spread(lonOff);
}

/** GEOADD's score: geohashEncodeWGS84 at step 26, aligned to 52 bits */
export function geoScore(lon: number, lat: number): number {
  return interleave(lat, lon, kStep, kLatMin, kLatMax);
}

/** (uint64_t)score as x86-64 converts a double (scores that are not geohashes decode to something) */
function toU64(score: number): bigint {
  if (score >= 2 ** 63) return score - 2 ** 63 >= 2 ** 63 ? 0n : BigInt(Math.trunc(score - 2 ** 63)) | (1n << 63n);
  if (!(score > -(2 ** 63))) return 1n << 63n;
  return BigInt.asUintN(64, BigInt(Math.trunc(score)));
}

function unspread(x: bigint): number {
  let out = 0;
  for (let i = 0; i < 32; i++) if ((x >> BigInt(2 * i)) & 1n) out += 2 ** i;
  return out;
}

/** decodeGeohash: [longitude, latitude] of a score, the middle of its cell, clamped */
export function decodeScore(score: number): [number, number] {
  const bits = toU64(score);
  const ilat = unspread(bits);
  const ilon = unspread(bits >> 1n);
  const div = 2 ** kStep;
  const latScale = kLatMax - kLatMin;
  const lonScale = kLonMax - kLonMin;
  // ilat + 1 is uint32 arithmetic in C
  const latMin = kLatMin + (ilat * 1.0 / div) * latScale;
  const latMax = kLatMin + (((ilat + 1) % 2 ** 32) * 1.0 / div) * latScale;
  const lonMin = kLonMin + (ilon * 1.0 / div) * lonScale;
  const lonMax = kLonMin + (((ilon + 1) % 2 ** 32) * 1.0 / div) * lonScale;
  let lon = (lonMin + lonMax) / 2;
  let lat = (latMin + latMax) / 2;
  if (lon > kLonMax) lon = kLonMax;
  if (lon < kLonMin) lon = kLonMin;
  if (lat > kLatMax) lat = kLatMax;
  if (lat < kLatMin) lat = kLatMin;
  return [lon, lat];
}

const kAlphabet = '0123456789bcdefghjkmnpqrstuvwxyz';

/** GEOHASH: the standard 11-character geohash (latitude ±90) of a score's decoded position */
export function geohashString(score: number): string {
  const [lon, lat] = decodeScore(score);
  const bits = BigInt(interleave(lat, lon, kStep, -90, 90));
  let out = '';
  for (let i = 0; i < 10; i++) out += kAlphabet[Number((bits >> BigInt(52 - (i + 1) * 5)) & 31n)];
  return `${out}0`; // 52 bits: Redis pads the 11th character with zero bits
}
