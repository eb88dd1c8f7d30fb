/**
 * Differential: geo commands against redis-server 7.0 in four connection patterns
 * (collections-compare.ts), byte for byte: GEOADD's scores (ZRANGE … WITHSCORES), GEOPOS's
 * coordinates, GEOHASH, GEODIST's "%.4f", and searches — their order too (unsorted results come
 * in Redis's cell order), COUNT [ANY], STORE/STOREDIST (read back with ZRANGE), the option
 * errors in Redis's order, also on missing and wrong-type keys. Points are random around Sicily
 * (searches of 1–500 km find some) with a few at the edges of the map.
 */
import { differential, exact, type CollectionFamily, type Step } from './collections-compare';
import type { Rng } from './prng';

const kNames = ['Palermo', 'Catania', 'Agrigento', 'a', 'b', 'c', 'd', 'e', 'f', '', '\x00m'];
const kUnits = ['m', 'km', 'KM', 'mi', 'ft', 'Ft', 'parsecs'];
const kEdges = [['180', '85.05112878'], ['-180', '-85.05112878'], ['0', '0'], ['179.9999', '-85'], ['-0.0001', '84.9']];
const kBadCoords = [['181', '10'], ['10', '86'], ['x', '1'], ['1', 'nan'], ['inf', '0'], ['-180.0000001', '0']];

const num = (x: number, digits = 6) => x.toFixed(digits);
const name = (rng: Rng) => rng.pick(kNames);

function point(rng: Rng): string[] {
  if (rng.chance(0.05)) return rng.pick(kEdges);
  if (rng.chance(0.1)) return [num(rng.next() * 360 - 180), num(rng.next() * 170 - 85)];
  return [num(11 + rng.next() * 6), num(36 + rng.next() * 4)];
}

function center(rng: Rng): string[] {
  const r = rng.next();
  if (r < 0.3) return ['FROMMEMBER', name(rng)];
  if (r < 0.33) return ['FROMLONLAT', ...rng.pick(kBadCoords)];
  return ['FROMLONLAT', ...point(rng)];
}

function shape(rng: Rng): string[] {
  const u = rng.chance(0.95) ? rng.pick(kUnits.slice(0, 6)) : rng.pick(kUnits);
  const size = () => (rng.chance(0.03) ? rng.pick(['-1', 'x', '0', '1e400', '20000']) : String(rng.between(1, 500)));
  if (rng.chance(0.6)) return ['BYRADIUS', size(), u === 'm' || u === 'ft' ? 'km' : u];
  return ['BYBOX', size(), size(), u === 'm' || u === 'ft' ? 'km' : u];
}

function options(rng: Rng, store: boolean): string[] {
  const out: string[] = [];
  if (!store && rng.chance(0.3)) out.push('WITHDIST');
  if (!store && rng.chance(0.2)) out.push('WITHCOORD');
  if (!store && rng.chance(0.15)) out.push('WITHHASH');
  if (rng.chance(0.4)) out.push(rng.pick(['ASC', 'DESC']));
  if (rng.chance(0.3)) out.push('COUNT', rng.pick(['1', '2', '3', '0', '-1', 'x', '100']), ...(rng.chance(0.3) ? ['ANY'] : []));
  if (rng.chance(0.02)) out.push('ANY');
  if (rng.chance(0.02)) out.push(rng.pick(['STORE', 'BOGUS', 'WITHDIST']));
  return out;
}

export const geoFamily: CollectionFamily = {
  name: 'geo',
  extra: ['dst'],
  step(rng, key): Step[] {
    const k = key();
    const dst = key('dst');
    const r = rng.next();
    if (r < 0.22) {
      const flags = ['NX', 'XX', 'CH'].filter(() => rng.chance(0.1));
      const pts = Array.from({ length: rng.between(1, 6) }, () => [...(rng.chance(0.03) ? rng.pick(kBadCoords) : point(rng)), name(rng)]).flat();
      return [exact('GEOADD', k, ...flags, ...pts)];
    }
    if (r < 0.27) return [exact('GEOPOS', k, ...Array.from({ length: rng.between(0, 3) }, () => name(rng)))];
    if (r < 0.31) return [exact('GEOHASH', k, ...Array.from({ length: rng.between(0, 3) }, () => name(rng)))];
    if (r < 0.37) return [exact('GEODIST', k, name(rng), name(rng), ...(rng.chance(0.6) ? [rng.pick(kUnits)] : []), ...(rng.chance(0.03) ? ['x'] : []))];
    if (r < 0.55) return [exact(rng.pick(['GEOSEARCH', 'GEOSEARCH', 'geosearch']), k, ...center(rng), ...shape(rng), ...options(rng, false))];
    if (r < 0.62) {
      return [exact('GEOSEARCHSTORE', dst, k, ...center(rng), ...shape(rng), ...options(rng, true), ...(rng.chance(0.4) ? ['STOREDIST'] : [])),
        exact('ZRANGE', dst, '0', '-1', 'WITHSCORES')];
    }
    if (r < 0.72) {
      const [lon, lat] = rng.chance(0.05) ? rng.pick(kBadCoords) : point(rng);
      const st = rng.chance(0.25) ? [rng.pick(['STORE', 'STOREDIST']), dst] : [];
      const cmd = st.length > 0 ? 'GEORADIUS' : rng.pick(['GEORADIUS', 'GEORADIUS_RO']);
      const [, size, unit] = shape(rng);
      return [exact(cmd, k, lon, lat, size, unit ?? 'km', ...options(rng, st.length > 0), ...st), exact('ZRANGE', dst, '0', '-1', 'WITHSCORES')];
    }
    if (r < 0.8) {
      const st = rng.chance(0.25) ? [rng.pick(['STORE', 'STOREDIST']), dst] : [];
      const cmd = st.length > 0 ? 'GEORADIUSBYMEMBER' : rng.pick(['GEORADIUSBYMEMBER', 'GEORADIUSBYMEMBER_RO']);
      return [exact(cmd, k, name(rng), String(rng.between(1, 600)), rng.pick(['km', 'mi', 'm']), ...options(rng, st.length > 0), ...st)];
    }
    if (r < 0.86) return [exact('ZRANGE', k, '0', '-1', 'WITHSCORES')];
    if (r < 0.88) return [exact('ZADD', k, rng.pick(['0', '-1', '1e20', '4503599627370496', '3.5']), name(rng))];
    if (r < 0.9) return [exact('ZREM', k, name(rng))];
    if (r < 0.92) return [exact('SET', k, 'str')];
    if (r < 0.95) return [exact('DEL', k)];
    return [exact(rng.pick(['GEOADD', 'GEOPOS', 'GEODIST', 'GEOSEARCH', 'GEORADIUS', 'GEOSEARCHSTORE']), k)]; // wrong arity
  },
  dump: (keys) => keys.map((k) => exact('ZRANGE', k, '0', '-1', 'WITHSCORES')),
  edges: [
    exact('GEOADD', 'Sicily', '13.361389', '38.115556', 'Palermo', '15.087269', '37.502669', 'Catania'),
    exact('GEOADD', 'Sicily', 'NX', 'XX', '1', '1', 'x'), exact('GEOADD', 'Sicily', 'CH', 'CH', 'CH'),
    exact('GEOADD', 'Sicily', '200', '100', 'x'), exact('GEOADD', 'Sicily', '0.0078125', '1e-7', 'x', '181', '0', 'y'),
    exact('GEOADD', 'Sicily', 'CH', '13.361389', '38.1', 'Palermo'), exact('ZRANGE', 'Sicily', '0', '-1', 'WITHSCORES'),
    exact('GEODIST', 'Sicily', 'Palermo', 'Catania', 'km', 'x'), exact('GEODIST', 'nokey', 'a', 'b', 'parsecs'),
    exact('GEODIST', 'nokey', 'a', 'b'), exact('GEOPOS', 'nokey', 'a'), exact('GEOHASH', 'nokey', 'a'), exact('GEOPOS', 'Sicily'),
    exact('GEOSEARCH', 'Sicily', 'FROMMEMBER', 'nope', 'BYRADIUS', 'x', 'km'),
    exact('GEOSEARCH', 'Sicily', 'BYRADIUS', 'x', 'km', 'FROMMEMBER', 'nope'),
    exact('GEOSEARCH', 'nokey', 'FROMMEMBER', 'nope', 'BYRADIUS', '1', 'km'),
    exact('GEOSEARCH', 'Sicily', 'FROMLONLAT', '1', '1', 'FROMMEMBER', 'Palermo', 'BYRADIUS', '1', 'km'),
    exact('GEOSEARCH', 'Sicily', 'BYRADIUS', '1', 'km'), exact('GEOSEARCH', 'Sicily', 'FROMLONLAT', '1', '1'),
    exact('GEOSEARCH', 'Sicily', 'FROMLONLAT', '15', '37', 'BYRADIUS', '200', 'km', 'ANY'),
    exact('GEOSEARCH', 'Sicily', 'FROMLONLAT', '15', '37', 'BYBOX', '-1', '2', 'km'),
    exact('GEOSEARCH', 'Sicily', 'FROMLONLAT', '15', '37', 'BYBOX', '1', 'x', 'km'),
    exact('GEOSEARCH', 'Sicily', 'FROMLONLAT', '15', '37', 'BYRADIUS', '1', 'km', 'STORE', 'x'),
    exact('GEOSEARCHSTORE', 'd', 'Sicily', 'FROMLONLAT', '15', '37', 'BYRADIUS', '200', 'km', 'WITHDIST'),
    exact('GEOSEARCHSTORE', 'd', 'nokey', 'FROMLONLAT', '15', '37', 'BYRADIUS', '200', 'km'),
    exact('GEORADIUSBYMEMBER', 'nokey', 'm', 'abc', 'km'), exact('GEORADIUSBYMEMBER', 'nokey', 'm', 'abc', 'km', 'STORE', 'd'),
    exact('GEORADIUSBYMEMBER', 'Sicily', 'nope', 'abc', 'km'), exact('GEORADIUS_RO', 'Sicily', '15', '37', '1', 'km', 'STORE', 'd'),
    exact('GEORADIUS', 'Sicily', '15', '37', '200', 'km', 'STORE', 'd', 'WITHCOORD'),
    exact('GEORADIUS', 'Sicily', '0', '0', '1e308', 'km', 'WITHDIST'), exact('GEORADIUS', 'Sicily', '0', '0', '0', 'km'),
    exact('GEORADIUS', 'Sicily', '13.361389', '38.115556', '0', 'm', 'WITHDIST', 'WITHHASH', 'WITHCOORD'),
    exact('SET', 'str', 'x'), exact('GEOSEARCH', 'str', 'FROMLONLAT', '1', 'x', 'BYRADIUS', '1', 'km'),
    exact('GEORADIUS', 'str', '1', '1', '1', 'km'), exact('GEOPOS', 'str', 'a'), exact('GEODIST', 'str', 'a', 'b'),
    exact('ZADD', 'odd', '-1', 'neg', '1e300', 'big', '9007199254740993', 'x', '-inf', 'ninf'), exact('GEOPOS', 'odd', 'neg', 'big', 'x', 'ninf'),
    exact('GEOHASH', 'odd', 'neg', 'big', 'x', 'ninf'),
  ],
};

differential(geoFamily, 20241122);
