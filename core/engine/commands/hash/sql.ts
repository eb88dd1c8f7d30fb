/**
 * The hash family's statements. Reads are plain SELECTs that return kv.type first (no row =
 * missing key); writes call the functions in ./functions.ts. $1 db, $2 key, the last $n now.
 */
import type { Statement } from '../../key-store';
import { randomPickStatement, type RandomFamily } from '../collection/random-sql';
import { scanStatement } from '../collection/scan-sql';
import { liveKey as live } from '../collection/sql';
const rows = 'h.db = k.db AND h.key = k.key';

/** the random picks' function (collection/random-sql.ts), installed by ./functions.ts */
export const kHashRandom: RandomFamily = { fn: 'h_rand', table: 'hashes', id: 'field', type: 1 };

export const kHashSql = {
  get: {
    name: 'pr_h_get',
    text: `SELECT k.type, h.value FROM kv k LEFT JOIN hashes h ON ${rows} AND h.field = $3::bytea WHERE ${live(4)}`,
  },
  mget: {
    name: 'pr_h_mget',
    text: `SELECT k.type, t.i::int4, h.value FROM kv k CROSS JOIN unnest($3::bytea[]) WITH ORDINALITY AS t(f, i)
           LEFT JOIN hashes h ON ${rows} AND h.field = t.f WHERE ${live(4)}`,
  },
  exists: {
    name: 'pr_h_exists',
    text: `SELECT k.type, EXISTS (SELECT 1 FROM hashes h WHERE ${rows} AND h.field = $3::bytea) FROM kv k WHERE ${live(4)}`,
  },
  strlen: {
    name: 'pr_h_strlen',
    text: `SELECT k.type, length(h.value) FROM kv k LEFT JOIN hashes h ON ${rows} AND h.field = $3::bytea WHERE ${live(4)}`,
  },
  keys: { name: 'pr_h_keys', text: `SELECT k.type, h.field FROM kv k LEFT JOIN hashes h ON ${rows} WHERE ${live(3)}` },
  vals: { name: 'pr_h_vals', text: `SELECT k.type, h.value FROM kv k LEFT JOIN hashes h ON ${rows} WHERE ${live(3)}` },
  getall: { name: 'pr_h_getall', text: `SELECT k.type, h.field, h.value FROM kv k LEFT JOIN hashes h ON ${rows} WHERE ${live(3)}` },
  /** HRANDFIELD: $3 count (-1 for one pick); fields with their values */
  rand: randomPickStatement('pr_h_rand', kHashRandom, 'value'),
  /** HSCAN: hashes of ≤ hash-max-listpack-entries (128) come whole (collection/scan-sql.ts) */
  scan: scanStatement('pr_h_scan', { table: 'hashes', id: 'field', extra: 'value', small: 128 }),
  set: { name: 'pr_h_set', text: 'SELECT status, n FROM h_set($1::int2, $2::bytea, $3::bytea[], $4::bytea[], $5::bool, $6::int8)' },
  /** a run of HSET / HMSET to one key: the fields that were new (hset-batch.ts) */
  setNew: { name: 'pr_h_set_new', text: 'SELECT status, field FROM h_set_new($1::int2, $2::bytea, $3::bytea[], $4::bytea[], $5::int8)' },
  del: { name: 'pr_h_del', text: 'SELECT status, n FROM h_del($1::int2, $2::bytea, $3::bytea[], $4::int8)' },
  incrBy: { name: 'pr_h_incrby', text: 'SELECT status, result::text FROM h_incrby($1::int2, $2::bytea, $3::bytea, $4::int8, $5::int8)' },
  incrByFloat: {
    name: 'pr_h_incrbyfloat',
    text: 'SELECT status, result FROM h_incrbyfloat($1::int2, $2::bytea, $3::bytea, $4::bytea, $5::int8)',
  },
} satisfies Record<string, Statement>;

