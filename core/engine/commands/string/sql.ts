/**
 * The string family's statements, except the lane's own runs (GET/MGET reads, plain SET/MSET
 * writes, INCR runs: workers/storage/statements.ts). Writes whose reply depends on the previous
 * value call ./functions.ts. $1 db, $2 key, the last $n now.
 */
import type { Statement } from '../../key-store';
import { call } from '../function-call';
import { live } from '../kv-row';

export const kStringSql = {
  /** SET with NX / XX / GET / KEEPTTL (KeyStore.set; plain SET is a lane write run) */
  setCond: call('set_cond', 'status, old', 'int2', 'bytea', 'bytea', 'int8', 'int2', 'bool', 'bool', 'int8'),
  getdel: call('getdel', 'status, val', 'int2', 'bytea', 'int8'),
  getex: call('getex', 'status, val, persisted', 'int2', 'bytea', 'int2', 'int8', 'int8'),
  getrange: call('getrange', 'status, val', 'int2', 'bytea', 'int8', 'int8', 'int8'),
  setrange: call('setrange', 'status, len::text', 'int2', 'bytea', 'int8', 'bytea', 'int8', 'int8'),
  append: call('append', 'status, len::text', 'int2', 'bytea', 'bytea', 'int8', 'int8'),
  /** $2 keys, distinct and in write order; $3 their values */
  msetnx: call('msetnx', '', 'int2', 'bytea[]', 'bytea[]', 'int8'),
  incrByFloat: call('incr_by_float', 'status, result', 'int2', 'bytea', 'bytea', 'int8'),
  strlen: {
    text: `SELECT type, length(value)::int8 FROM kv WHERE db = $1::int2 AND key = $2::bytea AND ${live('kv', '$3::int8')}`,
  },
  /** LCS: both values ($2, $3), i = which */
  lcs: {
    text: `SELECT t.i, kv.type, kv.value FROM (VALUES (1, $2::bytea), (2, $3::bytea)) AS t(i, key)
         JOIN kv ON kv.db = $1::int2 AND kv.key = t.key WHERE ${live('kv', '$4::int8')}`,
  },
} satisfies Record<string, Statement>;
