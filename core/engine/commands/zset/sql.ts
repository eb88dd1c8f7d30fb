/**
 * The sorted-set family's statements: reads return kv.type first (no row = missing key); ranges,
 * writes and the set algebra call ./functions.ts. $1 db, $2 key, the last $n now.
 */
import { KeyType, type Statement } from '../../key-store';
import { call } from '../function-call';
import { randomPickStatement, type RandomFamily } from '../collection/random-sql';
import { scanStatement } from '../collection/scan-sql';
import { elementSql, elementsSql, liveKey as live, rowsOf, type CollectionTable } from '../collection/sql';

export const kZsetTable: CollectionTable = { table: 'zsets', alias: 'z', id: 'member', type: KeyType.Zset };
/** the random picks' function (collection/random-sql.ts), installed by ./functions.ts */
export const kZsetRandom: RandomFamily = { ...kZsetTable, fn: 'z_rand' };
const rows = rowsOf(kZsetTable);
/**
 * Always true (no score is NaN, and Postgres sorts NaN above -inf anyway): a query that walks
 * the zsets_score index in (score, member) order without a score bound says it, so that it
 * implies the index's predicate `score IS NOT NULL` (schema v5, docs/postgres.md "Plans").
 */
export const everyScore = (t: string): string => `${t}.score >= '-Infinity'::float8`;
/** A range's bounds (z_range's p_kind … p_lim, zset/functions.ts), $3 to $12 after db and key */
const kRange = ['int2', 'bool', 'int8', 'int8', 'float8', 'float8', 'bytea', 'bytea', 'int8', 'int8'];
const range = kRange.map((t, i) => `$${i + 3}::${t}`).join(', ');

export const kZsetSql = {
  score: elementSql(kZsetTable, 'z.score'),
  mscore: elementsSql(kZsetTable, 'z.score'),
  /** rank from the bottom: elements before (score, member) in the zsets_score index */
  rank: {
    text: `SELECT k.type, k.card, (SELECT count(*) FROM zsets x WHERE x.db = k.db AND x.key = k.key
             AND ${everyScore('x')} AND (x.score, x.member) < (z.score, z.member)), z.member IS NOT NULL
           FROM kv k LEFT JOIN zsets z ON ${rows} AND z.member = $3::bytea WHERE ${live(4)}`,
  },
  count: {
    text: `SELECT k.type, (SELECT count(*) FROM zsets z WHERE ${rows} AND z.score >= $3::float8 AND z.score <= $4::float8)
           FROM kv k WHERE ${live(5)}`,
  },
  lexCount: {
    text: `SELECT k.type, (SELECT count(*) FROM zsets z WHERE ${rows} AND z.member >= $3::bytea AND z.member < $4::bytea)
           FROM kv k WHERE ${live(5)}`,
  },
  lexCountOpen: {
    text: `SELECT k.type, (SELECT count(*) FROM zsets z WHERE ${rows} AND z.member >= $3::bytea) FROM kv k WHERE ${live(4)}`,
  },
  /** ZRANDMEMBER: $3 count (-1 for one pick); members with their scores */
  rand: randomPickStatement(kZsetRandom, 'score'),
  /** ZSCAN: zsets of ≤ zset-max-listpack-entries (128) come whole (collection/scan-sql.ts) */
  scan: scanStatement(kZsetTable, { extra: 'score', small: 128 }),
  range: call('z_range', 'status, member, score', 'int2', 'bytea', ...kRange, 'int8'),
  rangeStore: {
    text: `SELECT status, n, existed FROM z_rangestore($1::int2, $13::bytea, $2::bytea, ${range}, $14::int8)`,
  },
  remRange: call('z_remrange', 'status, n, gone', 'int2', 'bytea', 'int2', 'int8', 'int8', 'float8', 'float8', 'bytea', 'bytea', 'int8'),
  add: call('z_add', 'status, added, changed, score', 'int2', 'bytea', 'bytea[]', 'float8[]', 'int2', 'int8'),
  /** a run of plain ZADDs on one key (zadd-batch.ts) */
  addRun: call('z_add_run', 'status, olds', 'int2', 'bytea', 'bytea[]', 'float8[]', 'int8'),
  rem: call('z_rem', 'status, n, gone', 'int2', 'bytea', 'bytea[]', 'int8'),
  pop: call('z_pop', 'status, member, score, gone', 'int2', 'bytea', 'int8', 'bool', 'int8'),
  mpop: call('z_mpop', 'status, key, member, score, gone', 'int2', 'bytea[]', 'bool', 'int8', 'int8'),
  /** b_zpop(db, keys, max, count, now, seq, block): blocking/functions.ts */
  bpop: call('b_zpop', 'status, key, member, score, n', 'int2', 'bytea[]', 'bool', 'int8', 'int8', 'int8', 'bool'),
  /** $2 op (0 types only, 1 inter, 2 union, 3 diff), $3 keys, $4 weights, $5 aggregate (1 sum, 2 min, 3 max) */
  combine: call('z_combine', 'status, member, score', 'int2', 'int2', 'bytea[]', 'float8[]', 'int2', 'int8'),
  store: call('z_store', 'status, n, existed', 'int2', 'bytea', 'int2', 'bytea[]', 'float8[]', 'int2', 'int8'),
  /** ZINTERCARD: $2 keys, $3 limit (0 = none) */
  interCard: call('z_intercard', 'status, n', 'int2', 'bytea[]', 'int8', 'int8'),
} satisfies Record<string, Statement>;
