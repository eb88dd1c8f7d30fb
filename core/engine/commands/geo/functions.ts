/**
 * Geo searches in Postgres (GEOSEARCH, GEOSEARCHSTORE, GEORADIUS*, and GEODIST's distance):
 * Redis's geohashCalculateAreasByShapeWGS84 picks a geohash precision from the radius and the
 * 9 cells around the centre (some dropped when the shape cannot reach them); only those 9 score
 * ranges are read, through the zsets_score index (score ≥ lo AND score < hi), in Redis's order
 * (cell, then score, then member). Each candidate's distance is Redis's haversine with Postgres's
 * sin/cos/asin/sqrt — the C library's, as redis-server's — so distances print the same "%.4f".
 *
 * Bit operators share one precedence level in Postgres: every bit expression is parenthesised.
 * Lengths in metres arrive computed by the worker (a radius of 1e308 km overflows, which
 * Postgres's float8 multiplication refuses, while C gives inf).
 *
 * geo_search statuses: 0 key missing (the store key deleted when asked), 1 done, 2 WRONGTYPE,
 * 3 the centre member is not in the sorted set.
 */
import { kWatchMark, live } from '../kv-row';

const kZset = 4;
const k5 = '6148914691236517205'; // 0x5555555555555555
const kA = '-6148914691236517206'; // 0xaaaaaaaaaaaaaaaa
const kLatMin = '-85.05112878';
const kLatMax = '85.05112878';

export function geoFunctions(s: string): string[] {
  return [
    // (uint64_t)score as x86-64 converts a double, as int8 bits
    `CREATE OR REPLACE FUNCTION ${s}.geo_bits(sc float8) RETURNS int8 LANGUAGE sql IMMUTABLE AS $f$
       SELECT CASE
         WHEN sc >= '9223372036854775808'::float8 THEN
           CASE WHEN sc - '9223372036854775808'::float8 >= '9223372036854775808'::float8 THEN 0::int8
                ELSE trunc(sc - '9223372036854775808'::float8)::int8 # (-9223372036854775808)::int8 END
         WHEN NOT (sc > '-9223372036854775808'::float8) THEN (-9223372036854775808)::int8
         ELSE trunc(sc)::int8 END $f$`,
    // the even bits of x, gathered (deinterleave64)
    `CREATE OR REPLACE FUNCTION ${s}.geo_unspread(p int8) RETURNS int8 LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE x int8 := p & ${k5};
     BEGIN
       x := (x | (x >> 1)) & 3689348814741910323;
       x := (x | (x >> 2)) & 1085102592571150095;
       x := (x | (x >> 4)) & 71777214294589695;
       x := (x | (x >> 8)) & 281470681808895;
       x := (x | (x >> 16)) & 4294967295;
       RETURN x;
     END $f$`,
    // x (< 2^32) spread to the even bits (interleave64)
    `CREATE OR REPLACE FUNCTION ${s}.geo_spread(p int8) RETURNS int8 LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE x int8 := p;
     BEGIN
       x := (x | (x << 16)) & 281470681808895;
       x := (x | (x << 8)) & 71777214294589695;
       x := (x | (x << 4)) & 1085102592571150095;
       x := (x | (x << 2)) & 3689348814741910323;
       x := (x | (x << 1)) & ${k5};
       RETURN x;
     END $f$`,
    // cell bounds of a geohash (geohashDecode over the WGS84 ranges)
    `CREATE OR REPLACE FUNCTION ${s}.geo_cell(p_bits int8, p_step int4,
       OUT lon_min float8, OUT lon_max float8, OUT lat_min float8, OUT lat_max float8) LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE ilat int8 := ${s}.geo_unspread(p_bits); ilon int8 := ${s}.geo_unspread(p_bits >> 1);
       d float8 := (1::int8 << p_step)::float8; lat_scale float8 := '${kLatMax}'::float8 - '${kLatMin}'::float8;
     BEGIN
       lat_min := '${kLatMin}'::float8 + (ilat::float8 / d) * lat_scale;
       lat_max := '${kLatMin}'::float8 + (((ilat + 1) & 4294967295)::float8 / d) * lat_scale;
       lon_min := '-180'::float8 + (ilon::float8 / d) * '360'::float8;
       lon_max := '-180'::float8 + (((ilon + 1) & 4294967295)::float8 / d) * '360'::float8;
     END $f$`,
    // decodeGeohash: a score's position, the middle of its cell, clamped
    `CREATE OR REPLACE FUNCTION ${s}.geo_decode(sc float8, OUT lon float8, OUT lat float8) LANGUAGE sql IMMUTABLE AS $f$
       SELECT least(greatest((c.lon_min + c.lon_max) / 2, '-180'::float8), '180'::float8),
              least(greatest((c.lat_min + c.lat_max) / 2, '${kLatMin}'::float8), '${kLatMax}'::float8)
         FROM ${s}.geo_cell(${s}.geo_bits(sc), 26) c $f$`,
    // geohashEncode over the WGS84 ranges (the coordinates are in range)
    `CREATE OR REPLACE FUNCTION ${s}.geo_encode(p_lon float8, p_lat float8, p_step int4) RETURNS int8
     LANGUAGE sql IMMUTABLE AS $f$
       SELECT ${s}.geo_spread(trunc(((p_lat - '${kLatMin}'::float8) / ('${kLatMax}'::float8 - '${kLatMin}'::float8))
                * (1::int8 << p_step)::float8)::int8)
            | (${s}.geo_spread(trunc(((p_lon + '180'::float8) / '360'::float8) * (1::int8 << p_step)::float8)::int8) << 1) $f$`,
    // geohashGetLatDistance and geohashGetDistance (haversine, Earth radius 6372797.560856 m)
    `CREATE OR REPLACE FUNCTION ${s}.geo_lat_dist(lat1 float8, lat2 float8) RETURNS float8 LANGUAGE sql IMMUTABLE AS $f$
       SELECT '6372797.560856'::float8 * abs(lat2 * (pi() / '180'::float8) - lat1 * (pi() / '180'::float8)) $f$`,
    `CREATE OR REPLACE FUNCTION ${s}.geo_dist(lon1 float8, lat1 float8, lon2 float8, lat2 float8) RETURNS float8
     LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE dr float8 := pi() / '180'::float8; u float8; v float8; a float8;
     BEGIN
       v := sin((lon2 * dr - lon1 * dr) / 2);
       IF v = 0 THEN RETURN ${s}.geo_lat_dist(lat1, lat2); END IF;
       u := sin((lat2 * dr - lat1 * dr) / 2);
       a := u * u + cos(lat1 * dr) * cos(lat2 * dr) * v * v;
       RETURN ('2'::float8 * '6372797.560856'::float8) * asin(least(sqrt(a), '1'::float8));
     END $f$`,
    // a geohash moved by one cell in longitude (dx) and latitude (dy), wrapping (geohash_move_x/y)
    `CREATE OR REPLACE FUNCTION ${s}.geo_move(p_bits int8, p_step int4, dx int4, dy int4) RETURNS int8
     LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE x int8 := p_bits & ${kA}; y int8 := p_bits & ${k5};
       low int8 := (1::int8 << (2 * p_step)) - 1; zx int8; zy int8;
     BEGIN
       zx := low & ${k5}; zy := low & ${kA};
       IF dx > 0 THEN x := x + (zx + 1); ELSIF dx < 0 THEN x := (x | zx) - (zx + 1); END IF;
       IF dx <> 0 THEN x := x & (low & ${kA}); END IF;
       IF dy > 0 THEN y := y + (zy + 1); ELSIF dy < 0 THEN y := (y | zy) - (zy + 1); END IF;
       IF dy <> 0 THEN y := y & (low & ${k5}); END IF;
       RETURN x | y;
     END $f$`,
    geoBoxes(s),
    geoSearch(s),
  ];
}

/**
 * geohashCalculateAreasByShapeWGS84 → the score ranges to read, in Redis's order: the centre cell,
 * N, S, E, W, NE, NW, SE, SW; cells the shape cannot reach dropped, a cell equal to the one read
 * just before skipped (Redis compares with the last one read only when that was not the centre).
 * p_radius_m: the circle's radius, or the half diagonal of the box, in metres; p_w_m / p_h_m:
 * half the box's width and height (the radius twice for a circle).
 */
function geoBoxes(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.geo_boxes(p_lon float8, p_lat float8, p_radius_m float8, p_w_m float8, p_h_m float8,
       OUT los float8[], OUT his float8[]) LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE dr float8 := pi() / '180'::float8; er float8 := '6372797.560856'::float8;
       steps int4 := 1; rm float8 := p_radius_m; hash int8; cells int8[]; zero bool[]; c record;
       lat_delta float8; min_lon float8; max_lon float8; min_lat float8; max_lat float8; i int4; last int4 := 0;
       d int4[] := '{0,0,0,1,-1,1,-1,1,-1}'; e int4[] := '{0,1,-1,0,0,1,1,-1,-1}'; shift int4;
     BEGIN
       -- geohashEstimateStepsByRadius
       IF rm = 0 THEN steps := 26;
       ELSE
         WHILE rm < '20037726.37'::float8 LOOP rm := rm * 2; steps := steps + 1; END LOOP;
         steps := steps - 2;
         IF p_lat > 66 OR p_lat < -66 THEN
           steps := steps - 1;
           IF p_lat > 80 OR p_lat < -80 THEN steps := steps - 1; END IF;
         END IF;
         steps := least(greatest(steps, 1), 26);
       END IF;
       hash := ${s}.geo_encode(p_lon, p_lat, steps);
       IF steps > 1 THEN
         -- geohashBoundingBox: the shape's extent (wider at the edge nearer the pole); only needed
         -- from 2 steps on, where it is small (a huge radius would overflow Postgres's float8)
         lat_delta := (p_h_m / er) / dr;
         min_lat := p_lat - lat_delta; max_lat := p_lat + lat_delta;
         max_lon := ((p_w_m / er) / cos((CASE WHEN p_lat < 0 THEN p_lat - lat_delta ELSE p_lat + lat_delta END) * dr)) / dr;
         min_lon := p_lon - max_lon; max_lon := p_lon + max_lon;
         -- one step coarser when a neighbour cell does not reach the shape's edge
         IF (${s}.geo_cell(${s}.geo_move(hash, steps, 0, 1), steps)).lat_max < max_lat
           OR (${s}.geo_cell(${s}.geo_move(hash, steps, 0, -1), steps)).lat_min > min_lat
           OR (${s}.geo_cell(${s}.geo_move(hash, steps, 1, 0), steps)).lon_max < max_lon
           OR (${s}.geo_cell(${s}.geo_move(hash, steps, -1, 0), steps)).lon_min > min_lon THEN
           steps := steps - 1;
           hash := ${s}.geo_encode(p_lon, p_lat, steps);
         END IF;
       END IF;
       cells := ARRAY[hash]; zero := ARRAY[false];
       FOR i IN 2 .. 9 LOOP cells := cells || ${s}.geo_move(hash, steps, d[i], e[i]); zero := zero || false; END LOOP;
       IF steps >= 2 THEN
         -- drop the neighbours the shape cannot reach
         c := ${s}.geo_cell(hash, steps);
         IF c.lat_min < min_lat THEN zero[3] := true; zero[9] := true; zero[8] := true; END IF;
         IF c.lat_max > max_lat THEN zero[2] := true; zero[6] := true; zero[7] := true; END IF;
         IF c.lon_min < min_lon THEN zero[5] := true; zero[9] := true; zero[7] := true; END IF;
         IF c.lon_max > max_lon THEN zero[4] := true; zero[8] := true; zero[6] := true; END IF;
       END IF;
       shift := 52 - 2 * steps;
       los := '{}'; his := '{}';
       FOR i IN 1 .. 9 LOOP
         CONTINUE WHEN zero[i];
         CONTINUE WHEN last > 1 AND cells[i] = cells[last];
         los := los || (cells[i] << shift)::float8;
         his := his || ((cells[i] + 1) << shift)::float8;
         last := i;
       END LOOP;
     END $f$`;
}

/**
 * The search itself. p_member: the centre is this member's position (NULL: p_lon, p_lat);
 * p_box: a box of p_w_m × p_h_m metres, else a circle of p_radius_m; p_any: stop once that many
 * matched (COUNT … ANY; 0 = no); p_sort 0 none, 1 ASC, 2 DESC by distance (ties keep the
 * order found: glibc's qsort is a stable merge sort); p_count: at most that many (0 = all).
 * Rows: (status, member, score, distance in metres); or with p_store, the results replace
 * that key (score, or with p_storedist the distance / p_conv) and n is their number, and
 * existed says whether the key was there to replace or delete (Redis fires 'del' for an empty
 * result only then).
 */
function geoSearch(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.geo_search(p_db int2, p_key bytea, p_member bytea, p_lon float8, p_lat float8,
       p_box bool, p_radius_m float8, p_w_m float8, p_h_m float8, p_any int8, p_sort int2, p_count int8,
       p_store bytea, p_storedist bool, p_conv float8, p_search bool, p_delete bool, p_now int8)
     RETURNS TABLE (status int2, member bytea, score float8, dist float8, existed bool) LANGUAGE plpgsql AS $f$
     #variable_conflict use_column
     DECLARE r record; b record; c_lon float8 := p_lon; c_lat float8 := p_lat; sc float8; ms bytea[]; scs float8[];
       ds float8[]; n int8; had bool := false;
     BEGIN
       SELECT k.type INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key AND ${live('k')};
       IF NOT FOUND THEN
         IF p_delete AND p_store IS NOT NULL THEN
           DELETE FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_store AND k.type <> ${kWatchMark};
           had := FOUND;
         END IF;
         RETURN QUERY SELECT 0::int2, NULL::bytea, NULL::float8, NULL::float8, had; RETURN;
       END IF;
       IF r.type <> ${kZset} THEN RETURN QUERY SELECT 2::int2, NULL::bytea, NULL::float8, NULL::float8, false; RETURN; END IF;
       IF p_member IS NOT NULL THEN
         SELECT z.score INTO sc FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key AND z.member = p_member;
         IF NOT FOUND THEN RETURN QUERY SELECT 3::int2, NULL::bytea, NULL::float8, NULL::float8, false; RETURN; END IF;
         SELECT d.lon, d.lat INTO c_lon, c_lat FROM ${s}.geo_decode(sc) d;
       END IF;
       IF NOT p_search THEN RETURN QUERY SELECT 1::int2, NULL::bytea, NULL::float8, NULL::float8, false; RETURN; END IF;
       b := ${s}.geo_boxes(c_lon, c_lat, p_radius_m, CASE WHEN p_box THEN p_w_m / 2 ELSE p_radius_m END,
         CASE WHEN p_box THEN p_h_m / 2 ELSE p_radius_m END);
       -- the matches in the order Redis finds them (cell, score, member); ANY stops at p_any
       SELECT array_agg(f.member ORDER BY f.o), array_agg(f.score ORDER BY f.o), array_agg(f.dist ORDER BY f.o)
         INTO ms, scs, ds FROM (
           SELECT row_number() OVER (ORDER BY q.n, q.score, q.member) AS o, q.member, q.score, q.dist FROM (
             SELECT x.n, z.member, z.score, CASE
                 WHEN NOT p_box THEN ${s}.geo_dist(c_lon, c_lat, d.lon, d.lat)
                 WHEN ${s}.geo_lat_dist(d.lat, c_lat) > p_h_m / 2 THEN NULL
                 WHEN ${s}.geo_dist(d.lon, d.lat, c_lon, d.lat) > p_w_m / 2 THEN NULL
                 ELSE ${s}.geo_dist(c_lon, c_lat, d.lon, d.lat) END AS dist
               FROM unnest(b.los, b.his) WITH ORDINALITY AS x(lo, hi, n)
               CROSS JOIN LATERAL (SELECT z.member, z.score FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key
                                     AND z.score >= x.lo AND z.score < x.hi) z
               CROSS JOIN LATERAL ${s}.geo_decode(z.score) d) q
           WHERE q.dist IS NOT NULL AND (p_box OR NOT q.dist > p_radius_m)
           ORDER BY q.n, q.score, q.member LIMIT CASE WHEN p_any > 0 THEN p_any END) f;
       -- sorted by distance, ties in the order found (glibc's qsort is a stable merge sort), then COUNT
       SELECT array_agg(t.m ORDER BY t.k), array_agg(t.sc ORDER BY t.k), array_agg(t.d ORDER BY t.k) INTO ms, scs, ds FROM (
           SELECT u.m, u.sc, u.d, row_number() OVER (ORDER BY CASE WHEN p_sort = 1 THEN u.d END,
               CASE WHEN p_sort = 2 THEN u.d END DESC, u.o) AS k
             FROM unnest(ms, scs, ds) WITH ORDINALITY AS u(m, sc, d, o)) t
         WHERE p_count = 0 OR t.k <= p_count;
       IF p_store IS NULL THEN
         RETURN QUERY SELECT 1::int2, u.m, u.sc, u.d, false FROM unnest(ms, scs, ds) WITH ORDINALITY AS u(m, sc, d, o) ORDER BY u.o;
         RETURN;
       END IF;
       SELECT z.n, z.existed INTO n, had FROM ${s}.z_replace(p_db, p_store,
         ms, CASE WHEN p_storedist THEN ARRAY(SELECT v / p_conv FROM unnest(ds) WITH ORDINALITY AS w(v, o) ORDER BY w.o) ELSE scs END) z;
       RETURN QUERY SELECT 1::int2, NULL::bytea, NULL::float8, n::float8, had;
     END $f$`;
}
