/**
 * The hash family's statements. Reads are plain SELECTs that return kv.type first (no row =
 * missing key); writes call the functions in ./functions.ts. $1 db, $2 key, the last $n now.
 */
import type { Statement } from '../../key-store';
import { call } from '../function-call';
import { randomPickStatement, type RandomFamily } from '../collection/random-sql';
import { scanStatement } from '../collection/scan-sql';
import { liveKey as live } from '../collection/sql';
const rows = 'h.db = k.db AND h.key = k.key';

/** the random picks' function (collection/random-sql.ts), installed by ./functions.ts */
export const kHashRandom: RandomFamily = { fn: 'h_rand', table: 'hashes', id: 'field', type: 1 };

export const kHashSql = {
  get: {
    text: `SELECT k.type, h.value FROM kv k LEFT JOIN hashes h ON ${rows} AND h.field = $3::bytea WHERE ${live(4)}`,
  },
  mget: {
    text: `SELECT k.type, t.i::int4, h.value FROM kv k CROSS JOIN unnest($3::bytea[]) WITH ORDINALITY AS t(f, i)
           LEFT JOIN hashes h ON ${rows} AND h.field = t.f WHERE ${live(4)}`,
  },
  exists: {
    text: `SELECT k.type, EXISTS (SELECT 1 FROM hashes h WHERE ${rows} AND h.field = $3::bytea) FROM kv k WHERE ${live(4)}`,
  },
  strlen: {
    text: `SELECT k.type, length(h.value) FROM kv k LEFT JOIN hashes h ON ${rows} AND h.field = $3::bytea WHERE ${live(4)}`,
  },
  keys: { text: `SELECT k.type, h.field FROM kv k LEFT JOIN hashes h ON ${rows} WHERE ${live(3)}` },
  vals: { text: `SELECT k.type, h.value FROM kv k LEFT JOIN hashes h ON ${rows} WHERE ${live(3)}` },
  getall: { text: `SELECT k.type, h.field, h.value FROM kv k LEFT JOIN hashes h ON ${rows} WHERE ${live(3)}` },
  /** HRANDFIELD: $3 count (-1 for one pick); fields with their values */
  rand: randomPickStatement(kHashRandom, 'value'),
  /** HSCAN: hashes of ≤ hash-max-listpack-entries (128) come whole (collection/scan-sql.ts) */
  scan: scanStatement({ table: 'hashes', id: 'field', extra: 'value', small: 128 }),
  set: call('h_set', 'status, n', 'int2', 'bytea', 'bytea[]', 'bytea[]', 'bool', 'int8'),
  /** a run of HSET / HMSET to one key: the fields that were new (workers/storage/hset-run.ts) */
  setNew: call('h_set_new', 'status, field', 'int2', 'bytea', 'bytea[]', 'bytea[]', 'int8'),
  del: call('h_del', 'status, n', 'int2', 'bytea', 'bytea[]', 'int8'),
  incrBy: call('h_incrby', 'status, result::text', 'int2', 'bytea', 'bytea', 'int8', 'int8'),
  incrByFloat: call('h_incrbyfloat', 'status, result', 'int2', 'bytea', 'bytea', 'bytea', 'int8'),
} satisfies Record<string, Statement>;

