/**
 * The set family's statements: reads return kv.type first (no row = missing key); writes and
 * the set algebra call ./functions.ts. $1 db, $2 key, the last $n now.
 */
import type { Statement } from '../../store';
import { liveKey as live } from '../collection/sql';

const rows = 's.db = k.db AND s.key = k.key';

export const kSetSql = {
  isMember: {
    name: 'pr_s_ismember',
    text: `SELECT k.type, EXISTS (SELECT 1 FROM sets s WHERE ${rows} AND s.member = $3::bytea) FROM kv k WHERE ${live(4)}`,
  },
  misMember: {
    name: 'pr_s_mismember',
    text: `SELECT k.type, t.i::int4, EXISTS (SELECT 1 FROM sets s WHERE ${rows} AND s.member = t.m)
           FROM kv k CROSS JOIN unnest($3::bytea[]) WITH ORDINALITY AS t(m, i) WHERE ${live(4)}`,
  },
  members: { name: 'pr_s_members', text: `SELECT k.type, s.member FROM kv k LEFT JOIN sets s ON ${rows} WHERE ${live(3)}` },
  /** one random member, as HRANDFIELD's.
   * h ≥ 0 is always true (h < 2^31): said so the wrap-around implies the (key, h) index's predicate (schema v5) */
  rand1: {
    name: 'pr_s_rand1',
    text: `SELECT k.type, p.member FROM kv k LEFT JOIN LATERAL (
             (SELECT member FROM sets s WHERE ${rows} AND s.h >= $3::int4 ORDER BY s.h LIMIT 1)
             UNION ALL (SELECT member FROM sets s WHERE ${rows} AND s.h >= 0 ORDER BY s.h LIMIT 1) LIMIT 1) p ON true
           WHERE ${live(4)}`,
  },
  randDistinct: {
    name: 'pr_s_rand_distinct',
    text: `SELECT k.type, p.member FROM kv k LEFT JOIN LATERAL (
             (SELECT member FROM sets s WHERE ${rows} AND s.h >= $3::int4 ORDER BY s.h LIMIT $4::int8)
             UNION ALL (SELECT member FROM sets s WHERE ${rows} AND s.h < $3::int4 ORDER BY s.h LIMIT $4::int8)
             LIMIT $4::int8) p ON true
           WHERE ${live(5)}`,
  },
  randRepeat: {
    name: 'pr_s_rand_repeat',
    text: `SELECT k.type, p.member FROM kv k CROSS JOIN unnest($3::int4[]) WITH ORDINALITY AS r(v, i)
           LEFT JOIN LATERAL (
             (SELECT member FROM sets s WHERE ${rows} AND s.h >= r.v ORDER BY s.h LIMIT 1)
             UNION ALL (SELECT member FROM sets s WHERE ${rows} AND s.h >= 0 ORDER BY s.h LIMIT 1) LIMIT 1) p ON true
           WHERE ${live(4)} ORDER BY r.i`,
  },
  scan: {
    name: 'pr_s_scan',
    text: `SELECT k.type, p.member, NULL, p.h FROM kv k LEFT JOIN LATERAL (
             SELECT member, s.h FROM sets s WHERE ${rows} AND s.h >= $3::int4 ORDER BY s.h LIMIT $4::int8) p ON true
           WHERE ${live(5)}`,
  },
  add: { name: 'pr_s_add', text: 'SELECT status, n FROM s_add($1::int2, $2::bytea, $3::bytea[], $4::int8)' },
  /** a run of SADDs to one key: the members that were new (workers/storage/sadd-run.ts) */
  addNew: { name: 'pr_s_add_new', text: 'SELECT status, member FROM s_add_new($1::int2, $2::bytea, $3::bytea[], $4::int8)' },
  rem: { name: 'pr_s_rem', text: 'SELECT status, n FROM s_rem($1::int2, $2::bytea, $3::bytea[], $4::int8)' },
  pop: { name: 'pr_s_pop', text: 'SELECT status, member FROM s_pop($1::int2, $2::bytea, $3::int8, $4::int4, $5::int8)' },
  move: { name: 'pr_s_move', text: 'SELECT status FROM s_move($1::int2, $2::bytea, $3::bytea, $4::bytea, $5::int8)' },
  /** $2 op (1 inter, 2 union, 3 diff), $3 keys, $4 limit (0 = none) */
  combine: { name: 'pr_s_combine', text: 'SELECT status, member FROM s_combine($1::int2, $2::int2, $3::bytea[], $4::int8, $5::int8)' },
  store: { name: 'pr_s_store', text: 'SELECT status, n FROM s_store($1::int2, $2::bytea, $3::int2, $4::bytea[], $5::int8)' },
} satisfies Record<string, Statement>;
