/**
 * The geo family's statements ($1 db, $2 key, the last $n now). Positions of members come from
 * the sorted-set family's ZMSCORE statement (kZsetSql.mscore); searches and distances call
 * ./functions.ts.
 */
import type { Statement } from '../../key-store';
import { call } from '../function-call';
import { liveKey as live } from '../collection/sql';

export const kGeoSql = {
  /** GEODIST: type, and the distance in metres (NULL when a member is missing) */
  dist: {
    text: `SELECT k.type, (SELECT geo_dist(a.lon, a.lat, b.lon, b.lat) FROM zsets z1, zsets z2, geo_decode(z1.score) a,
             geo_decode(z2.score) b WHERE z1.db = k.db AND z1.key = k.key AND z1.member = $3::bytea
             AND z2.db = k.db AND z2.key = k.key AND z2.member = $4::bytea)
           FROM kv k WHERE ${live(5)}`,
  },
  search: call('geo_search', 'status, member, score, dist, existed', 'int2', 'bytea', 'bytea', 'float8', 'float8', 'bool',
    'float8', 'float8', 'float8', 'int8', 'int2', 'int8', 'bytea', 'bool', 'float8', 'bool', 'bool', 'int8'),
} satisfies Record<string, Statement>;
