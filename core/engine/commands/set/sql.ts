/**
 * The set family's statements: reads return kv.type first (no row = missing key); writes and
 * the set algebra call ./functions.ts. $1 db, $2 key, the last $n now.
 */
import type { Statement } from '../../key-store';
import { randomPickStatement, type RandomFamily } from '../collection/random-sql';
import { scanStatement } from '../collection/scan-sql';
import { liveKey as live } from '../collection/sql';

const rows = 's.db = k.db AND s.key = k.key';

/** the random picks' function (collection/random-sql.ts), installed by ./functions.ts */
export const kSetRandom: RandomFamily = { fn: 's_rand', table: 'sets', id: 'member', type: 3 };

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
  /** SRANDMEMBER: $3 count (-1 for one pick) */
  rand: randomPickStatement('pr_s_rand', kSetRandom),
  /** SSCAN: sets of ≤ set-max-intset-entries (512) come whole (collection/scan-sql.ts) */
  scan: scanStatement('pr_s_scan', { table: 'sets', id: 'member', small: 512 }),
  add: { name: 'pr_s_add', text: 'SELECT status, n FROM s_add($1::int2, $2::bytea, $3::bytea[], $4::int8)' },
  /** a run of SADDs to one key: the members that were new (sadd-batch.ts) */
  addNew: { name: 'pr_s_add_new', text: 'SELECT status, member FROM s_add_new($1::int2, $2::bytea, $3::bytea[], $4::int8)' },
  rem: { name: 'pr_s_rem', text: 'SELECT status, n FROM s_rem($1::int2, $2::bytea, $3::bytea[], $4::int8)' },
  pop: { name: 'pr_s_pop', text: 'SELECT status, member FROM s_pop($1::int2, $2::bytea, $3::int8, $4::int4, $5::int8)' },
  move: { name: 'pr_s_move', text: 'SELECT status FROM s_move($1::int2, $2::bytea, $3::bytea, $4::bytea, $5::int8)' },
  /** $2 op (1 inter, 2 union, 3 diff), $3 keys, $4 limit (0 = none) */
  combine: { name: 'pr_s_combine', text: 'SELECT status, member FROM s_combine($1::int2, $2::int2, $3::bytea[], $4::int8, $5::int8)' },
  store: { name: 'pr_s_store', text: 'SELECT status, n FROM s_store($1::int2, $2::bytea, $3::int2, $4::bytea[], $5::int8)' },
} satisfies Record<string, Statement>;
