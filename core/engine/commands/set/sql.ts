/**
 * The set family's statements: reads return kv.type first (no row = missing key); writes and
 * the set algebra call ./functions.ts. $1 db, $2 key, the last $n now.
 */
import { KeyType, type Statement } from '../../key-store';
import { call } from '../function-call';
import { randomPickStatement, type RandomFamily } from '../collection/random-sql';
import { scanStatement } from '../collection/scan-sql';
import { everyElementSql, hasElementSql, liveKey as live, rowsOf, type CollectionTable } from '../collection/sql';

export const kSetTable: CollectionTable = { table: 'sets', alias: 's', id: 'member', type: KeyType.Set };
/** the random picks' function (collection/random-sql.ts), installed by ./functions.ts */
export const kSetRandom: RandomFamily = { ...kSetTable, fn: 's_rand' };
const rows = rowsOf(kSetTable);

export const kSetSql = {
  isMember: hasElementSql(kSetTable),
  misMember: {
    text: `SELECT k.type, t.i::int4, EXISTS (SELECT 1 FROM sets s WHERE ${rows} AND s.member = t.m)
           FROM kv k CROSS JOIN unnest($3::bytea[]) WITH ORDINALITY AS t(m, i) WHERE ${live(4)}`,
  },
  members: everyElementSql(kSetTable, 's.member'),
  /** SRANDMEMBER: $3 count (-1 for one pick) */
  rand: randomPickStatement(kSetRandom),
  /** SSCAN: sets of ≤ set-max-intset-entries (512) come whole (collection/scan-sql.ts) */
  scan: scanStatement(kSetTable, { small: 512 }),
  add: call('s_add', 'status, n', 'int2', 'bytea', 'bytea[]', 'int8'),
  /** a run of SADDs to one key: the members that were new (./sadd-batch.ts) */
  addNew: call('s_add_new', 'status, member', 'int2', 'bytea', 'bytea[]', 'int8'),
  rem: call('s_rem', 'status, n, gone', 'int2', 'bytea', 'bytea[]', 'int8'),
  pop: call('s_pop', 'status, member, gone', 'int2', 'bytea', 'int8', 'int4', 'int8'),
  move: call('s_move', 'status, gone, added', 'int2', 'bytea', 'bytea', 'bytea', 'int8'),
  /** $2 op (1 inter, 2 union, 3 diff), $3 keys, $4 limit (0 = none) */
  combine: call('s_combine', 'status, member', 'int2', 'int2', 'bytea[]', 'int8', 'int8'),
  store: call('s_store', 'status, n, existed', 'int2', 'bytea', 'int2', 'bytea[]', 'int8'),
} satisfies Record<string, Statement>;
