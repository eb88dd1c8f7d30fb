/**
 * The hash family's statements. Reads are plain SELECTs that return kv.type first (no row =
 * missing key); writes call the functions in ./functions.ts. $1 db, $2 key, the last $n now.
 */
import type { Statement } from '../../store';
import { liveKey as live } from '../collection/sql';
const rows = 'h.db = k.db AND h.key = k.key';

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
  /** one random field: the first with h ≥ $3, wrapping to the smallest h.
   * h ≥ 0 is always true (h < 2^31): said so the wrap-around implies the (key, h) index's predicate (schema v5) */
  rand1: {
    name: 'pr_h_rand1',
    text: `SELECT k.type, p.field FROM kv k LEFT JOIN LATERAL (
             (SELECT field FROM hashes h WHERE ${rows} AND h.h >= $3::int4 ORDER BY h.h LIMIT 1)
             UNION ALL (SELECT field FROM hashes h WHERE ${rows} AND h.h >= 0 ORDER BY h.h LIMIT 1) LIMIT 1) p ON true
           WHERE ${live(4)}`,
  },
  /** up to $4 distinct fields: a run in h order from $3, wrapping */
  randDistinct: {
    name: 'pr_h_rand_distinct',
    text: `SELECT k.type, p.field, p.value FROM kv k LEFT JOIN LATERAL (
             (SELECT field, value FROM hashes h WHERE ${rows} AND h.h >= $3::int4 ORDER BY h.h LIMIT $4::int8)
             UNION ALL (SELECT field, value FROM hashes h WHERE ${rows} AND h.h < $3::int4 ORDER BY h.h LIMIT $4::int8)
             LIMIT $4::int8) p ON true
           WHERE ${live(5)}`,
  },
  /** one independent pick per element of $3 (repetitions allowed), in order */
  randRepeat: {
    name: 'pr_h_rand_repeat',
    text: `SELECT k.type, p.field, p.value FROM kv k CROSS JOIN unnest($3::int4[]) WITH ORDINALITY AS r(v, i)
           LEFT JOIN LATERAL (
             (SELECT field, value FROM hashes h WHERE ${rows} AND h.h >= r.v ORDER BY h.h LIMIT 1)
             UNION ALL (SELECT field, value FROM hashes h WHERE ${rows} AND h.h >= 0 ORDER BY h.h LIMIT 1) LIMIT 1) p ON true
           WHERE ${live(4)} ORDER BY r.i`,
  },
  scan: {
    name: 'pr_h_scan',
    text: `SELECT k.type, p.field, p.value, p.h FROM kv k LEFT JOIN LATERAL (
             SELECT field, value, h.h FROM hashes h WHERE ${rows} AND h.h >= $3::int4 ORDER BY h.h LIMIT $4::int8) p ON true
           WHERE ${live(5)}`,
  },
  set: { name: 'pr_h_set', text: 'SELECT status, n FROM h_set($1::int2, $2::bytea, $3::bytea[], $4::bytea[], $5::bool, $6::int8)' },
  /** a run of HSET / HMSET to one key: the fields that were new (workers/storage/hset-run.ts) */
  setNew: { name: 'pr_h_set_new', text: 'SELECT status, field FROM h_set_new($1::int2, $2::bytea, $3::bytea[], $4::bytea[], $5::int8)' },
  del: { name: 'pr_h_del', text: 'SELECT status, n FROM h_del($1::int2, $2::bytea, $3::bytea[], $4::int8)' },
  incrBy: { name: 'pr_h_incrby', text: 'SELECT status, result::text FROM h_incrby($1::int2, $2::bytea, $3::bytea, $4::int8, $5::int8)' },
  incrByFloat: {
    name: 'pr_h_incrbyfloat',
    text: 'SELECT status, result FROM h_incrbyfloat($1::int2, $2::bytea, $3::bytea, $4::bytea, $5::int8)',
  },
} satisfies Record<string, Statement>;

