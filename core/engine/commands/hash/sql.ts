/**
 * The hash family's statements. Reads are plain SELECTs that return kv.type first (no row =
 * missing key); writes call the functions in ./functions.ts. $1 db, $2 key, the last $n now.
 */
import { KeyType, type Statement } from '../../key-store';
import { call } from '../function-call';
import { randomPickStatement, type RandomFamily } from '../collection/random-sql';
import { scanStatement } from '../collection/scan-sql';
import { elementSql, elementsSql, everyElementSql, hasElementSql, type CollectionTable } from '../collection/sql';

export const kHashTable: CollectionTable = { table: 'hashes', alias: 'h', id: 'field', type: KeyType.Hash };
/** the random picks' function (collection/random-sql.ts), installed by ./functions.ts */
export const kHashRandom: RandomFamily = { ...kHashTable, fn: 'h_rand' };

export const kHashSql = {
  get: elementSql(kHashTable, 'h.value'),
  mget: elementsSql(kHashTable, 'h.value'),
  exists: hasElementSql(kHashTable),
  strlen: elementSql(kHashTable, 'length(h.value)'),
  keys: everyElementSql(kHashTable, 'h.field'),
  vals: everyElementSql(kHashTable, 'h.value'),
  getall: everyElementSql(kHashTable, 'h.field, h.value'),
  /** HRANDFIELD: $3 count (-1 for one pick); fields with their values */
  rand: randomPickStatement(kHashRandom, 'value'),
  /** HSCAN: hashes of ≤ hash-max-listpack-entries (128) come whole (collection/scan-sql.ts) */
  scan: scanStatement(kHashTable, { extra: 'value', small: 128 }),
  set: call('h_set', 'status, n', 'int2', 'bytea', 'bytea[]', 'bytea[]', 'bool', 'int8'),
  /** a run of HSET / HMSET to one key: the fields that were new (./hset-batch.ts) */
  setNew: call('h_set_new', 'status, field', 'int2', 'bytea', 'bytea[]', 'bytea[]', 'int8'),
  del: call('h_del', 'status, n, gone', 'int2', 'bytea', 'bytea[]', 'int8'),
  incrBy: call('h_incrby', 'status, result::text', 'int2', 'bytea', 'bytea', 'int8', 'int8'),
  incrByFloat: call('h_incrbyfloat', 'status, result', 'int2', 'bytea', 'bytea', 'bytea', 'int8'),
} satisfies Record<string, Statement>;

