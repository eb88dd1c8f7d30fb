/**
 * The options of GEORADIUS, GEORADIUSBYMEMBER (and their _RO forms), GEOSEARCH and
 * GEOSEARCHSTORE, parsed as georadiusGeneric does, in its order. Some answers depend on the
 * key: a missing key skips GEORADIUSBYMEMBER's radius and the member lookups, and a member that
 * is not in the set answers "could not decode requested zset member" at the point it is looked
 * up. So the parse runs for a given state (key exists? member exists?); the command sends one
 * statement and then picks the answer for the state Postgres found (./search.ts).
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';
import { box, distance, lonLat } from './args';

export const enum GeoVariant { Coords = 1, Member = 2, NoStore = 4, Search = 8, SearchStore = 16 }
export const enum GeoSort { None = 0, Asc = 1, Desc = 2 }

export const kNoMember = new RespError('ERR could not decode requested zset member');
const kCountPositive = new RespError('ERR COUNT must be > 0');
const kAnyCount = new RespError('ERR the ANY argument requires COUNT argument');

export interface GeoQuery {
  /** the centre is this member's position (looked up by the statement), else lon, lat */
  member: Buffer | null;
  lon: number; lat: number;
  box: boolean; radius: number; width: number; height: number; conv: number;
  withDist: boolean; withHash: boolean; withCoord: boolean;
  sort: GeoSort; any: boolean;
  /** 0 = all */
  count: bigint;
  store: Buffer | null; storeDist: boolean;
}

export function parseGeoQuery(argv: Buffer[], v: GeoVariant, keyExists: boolean, memberExists: boolean): GeoQuery | RespError {
  const q: GeoQuery = {
    member: null, lon: 0, lat: 0, box: false, radius: 0, width: 0, height: 0, conv: 1, withDist: false, withHash: false,
    withCoord: false, sort: GeoSort.None, any: false, count: 0n, store: null, storeDist: false,
  };
  let base: number;
  if (v & GeoVariant.Coords) {
    base = 6;
    const ll = lonLat(argv[2], argv[3]);
    if (ll instanceof RespError) return ll;
    [q.lon, q.lat] = ll;
    const d = distance(argv[4], argv[5]);
    if (d instanceof RespError) return d;
    q.radius = d.radius; q.conv = d.conv;
  } else if ((v & GeoVariant.Member) && !keyExists) {
    base = 5;
  } else if (v & GeoVariant.Member) {
    base = 5;
    if (!memberExists) return kNoMember;
    q.member = argv[2];
    const d = distance(argv[3], argv[4]);
    if (d instanceof RespError) return d;
    q.radius = d.radius; q.conv = d.conv;
  } else {
    base = v & GeoVariant.SearchStore ? 3 : 2;
    if (v & GeoVariant.SearchStore) q.store = argv[1];
  }
  const search = (v & GeoVariant.Search) !== 0;
  const storeOk = !(v & GeoVariant.NoStore) && !search;
  let fromMember = false;
  let fromLonLat = false;
  let byRadius = false;
  let byBox = false;
  const left = (i: number) => argv.length - 1 - i;
  for (let i = base; i < argv.length; i++) {
    const a = argv[i];
    if (eqIgnoreCase(a, 'withdist')) q.withDist = true;
    else if (eqIgnoreCase(a, 'withhash')) q.withHash = true;
    else if (eqIgnoreCase(a, 'withcoord')) q.withCoord = true;
    else if (eqIgnoreCase(a, 'any')) q.any = true;
    else if (eqIgnoreCase(a, 'asc')) q.sort = GeoSort.Asc;
    else if (eqIgnoreCase(a, 'desc')) q.sort = GeoSort.Desc;
    else if (eqIgnoreCase(a, 'count') && left(i) >= 1) {
      const c = parseI64(argv[++i]);
      if (c === undefined) return Err.notInteger;
      if (c <= 0n) return kCountPositive;
      q.count = c;
    } else if (storeOk && left(i) >= 1 && (eqIgnoreCase(a, 'store') || eqIgnoreCase(a, 'storedist'))) {
      q.storeDist = eqIgnoreCase(a, 'storedist');
      q.store = argv[++i];
    } else if (search && (v & GeoVariant.SearchStore) && eqIgnoreCase(a, 'storedist')) {
      q.storeDist = true;
    } else if (search && !fromLonLat && left(i) >= 1 && eqIgnoreCase(a, 'frommember')) {
      i++;
      if (keyExists) {
        if (!memberExists) return kNoMember;
        q.member = argv[i];
      }
      fromMember = true;
    } else if (search && !fromMember && left(i) >= 2 && eqIgnoreCase(a, 'fromlonlat')) {
      const ll = lonLat(argv[i + 1], argv[i + 2]);
      if (ll instanceof RespError) return ll;
      [q.lon, q.lat] = ll;
      fromLonLat = true;
      i += 2;
    } else if (search && !byBox && left(i) >= 2 && eqIgnoreCase(a, 'byradius')) {
      const d = distance(argv[i + 1], argv[i + 2]);
      if (d instanceof RespError) return d;
      q.radius = d.radius; q.conv = d.conv; q.box = false;
      byRadius = true;
      i += 2;
    } else if (search && !byRadius && left(i) >= 3 && eqIgnoreCase(a, 'bybox')) {
      const b = box(argv[i + 1], argv[i + 2], argv[i + 3]);
      if (b instanceof RespError) return b;
      q.width = b.width; q.height = b.height; q.conv = b.conv; q.box = true;
      byBox = true;
      i += 3;
    } else return Err.syntax;
  }
  if (q.store !== null && (q.withDist || q.withHash || q.withCoord)) {
    const what = v & GeoVariant.SearchStore ? 'GEOSEARCHSTORE' : 'STORE option in GEORADIUS';
    return new RespError(`ERR ${what} is not compatible with WITHDIST, WITHHASH and WITHCOORD options`);
  }
  const name = argv[0].toString('latin1').split('\0')[0];
  if (search && !fromMember && !fromLonLat) {
    return new RespError(`ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for ${name}`);
  }
  if (search && !byRadius && !byBox) {
    return new RespError(`ERR exactly one of BYRADIUS and BYBOX can be specified for ${name}`);
  }
  if (q.any && q.count === 0n) return kAnyCount;
  // COUNT without an order returns the nearest: ASC (ANY returns what it found first)
  if (q.count !== 0n && q.sort === GeoSort.None && !q.any) q.sort = GeoSort.Asc;
  return q;
}
