/**
 * The string family's statements, except the lane's own runs (GET/MGET reads, plain SET/MSET
 * writes, INCR runs: workers/storage/statements.ts). Writes whose reply depends on the previous
 * value call ./functions.ts. $1 db, $2 key, the last $n now.
 */
import type { Statement } from '../../key-store';
import { live } from '../kv-row';

export const kStringSql = {
  /** SET with NX / XX / GET / KEEPTTL (KeyStore.set; plain SET is a lane write run) */
  setCond: { text: 'SELECT status, old FROM set_cond($1::int2, $2::bytea, $3::bytea, $4::int8, $5::int2, $6::bool, $7::bool, $8::int8)' },
  getdel: { text: 'SELECT status, val FROM getdel($1::int2, $2::bytea, $3::int8)' },
  getex: { text: 'SELECT status, val FROM getex($1::int2, $2::bytea, $3::int2, $4::int8, $5::int8)' },
  getrange: { text: 'SELECT status, val FROM getrange($1::int2, $2::bytea, $3::int8, $4::int8, $5::int8)' },
  setrange: { text: 'SELECT status, len::text FROM setrange($1::int2, $2::bytea, $3::int8, $4::bytea, $5::int8, $6::int8)' },
  append: { text: 'SELECT status, len::text FROM append($1::int2, $2::bytea, $3::bytea, $4::int8, $5::int8)' },
  /** $2 keys, distinct and in write order; $3 their values */
  msetnx: { text: 'SELECT msetnx($1::int2, $2::bytea[], $3::bytea[], $4::int8)' },
  incrByFloat: { text: 'SELECT status, result FROM incr_by_float($1::int2, $2::bytea, $3::bytea, $4::int8)' },
  strlen: {
    text: `SELECT type, length(value)::int8 FROM kv WHERE db = $1::int2 AND key = $2::bytea AND ${live('kv', '$3::int8')}`,
  },
  /** LCS: both values ($2, $3), i = which */
  lcs: {
    text: `SELECT t.i, kv.type, kv.value FROM (VALUES (1, $2::bytea), (2, $3::bytea)) AS t(i, key)
         JOIN kv ON kv.db = $1::int2 AND kv.key = t.key WHERE ${live('kv', '$4::int8')}`,
  },
} satisfies Record<string, Statement>;
