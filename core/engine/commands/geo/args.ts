/**
 * Geo arguments with Redis's checks and texts (geo.c): a longitude/latitude pair in range, a
 * unit (m, km, ft, mi, any case) and its factor to metres, a distance or a box.
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase } from '../args';
import { string2d } from '../collection/strtod';
import { fixed } from './fixed';
import { kLatMax, kLatMin, kLonMax, kLonMin } from './geohash';

export const kBadUnit = new RespError('ERR unsupported unit provided. please use M, KM, FT, MI');
const kNegativeRadius = new RespError('ERR radius cannot be negative');
const kNegativeBox = new RespError('ERR height or width cannot be negative');
const kUnits: [string, number][] = [['m', 1], ['km', 1000], ['ft', 0.3048], ['mi', 1609.34]];

/** getDoubleFromObjectOrReply with an optional message in place of "value is not a valid float" */
export function double(b: Buffer, msg?: string): number | RespError {
  const v = string2d(b);
  return v === undefined ? (msg === undefined ? Err.notFloat : new RespError(`ERR ${msg}`)) : v;
}

/** extractLongLatOrReply: [longitude, latitude] */
export function lonLat(lon: Buffer, lat: Buffer): [number, number] | RespError {
  const x = double(lon);
  if (x instanceof RespError) return x;
  const y = double(lat);
  if (y instanceof RespError) return y;
  if (x < kLonMin || x > kLonMax || y < kLatMin || y > kLatMax || Number.isNaN(x) || Number.isNaN(y)) {
    return new RespError(`ERR invalid longitude,latitude pair ${fixed(x, 6)},${fixed(y, 6)}`);
  }
  return [x, y];
}

/** extractUnitOrReply: metres per unit */
export function unit(b: Buffer): number | RespError {
  const u = kUnits.find(([name]) => eqIgnoreCase(b, name));
  return u === undefined ? kBadUnit : u[1];
}

/** extractDistanceOrReply: <radius> <unit> → { radius (in the unit), conv } */
export function distance(r: Buffer, u: Buffer): { radius: number; conv: number } | RespError {
  const radius = double(r, 'need numeric radius');
  if (radius instanceof RespError) return radius;
  if (radius < 0) return kNegativeRadius;
  const conv = unit(u);
  return conv instanceof RespError ? conv : { radius, conv };
}

/** extractBoxOrReply: <width> <height> <unit> */
export function box(w: Buffer, h: Buffer, u: Buffer): { width: number; height: number; conv: number } | RespError {
  const width = double(w, 'need numeric width');
  if (width instanceof RespError) return width;
  const height = double(h, 'need numeric height');
  if (height instanceof RespError) return height;
  if (height < 0 || width < 0) return kNegativeBox;
  const conv = unit(u);
  return conv instanceof RespError ? conv : { width, height, conv };
}
