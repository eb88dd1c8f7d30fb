/**
 * The lane's own runs: many GET/MGET reads, many plain SET/MSET writes, many INCRs, each as one
 * statement. Every other statement belongs to its command family (core/engine/commands/<family>/
 * sql.ts) and reaches the lane through KeyStore.exec or a merged run. Table names are
 * unqualified: every lane connection starts with search_path set to the keyspace schema
 * (core/primary/postgres/schema.ts startupOptions).
 */
import type { Statement } from '../../core/engine/key-store';
import { call } from '../../core/engine/commands/function-call';
import { live } from '../../core/engine/commands/kv-row';

export type { Statement };

export const kSql = {
  /** read run: one row per requested key that exists; i = position in the flattened request */
  read: {
    text: `SELECT t.i::int4, kv.type, kv.value FROM unnest($1::int2[], $2::bytea[]) WITH ORDINALITY AS t(db, key, i)
           JOIN kv ON kv.db = t.db AND kv.key = t.key WHERE ${live('kv', '$3::int8')}`,
  },
  /** read run of a cached read: the expiry too (an entry never outlives its TTL); 0 = none */
  readExp: {
    text: `SELECT t.i::int4, kv.type, kv.value, coalesce(kv.expires_at, 0) FROM unnest($1::int2[], $2::bytea[]) WITH ORDINALITY AS t(db, key, i)
           JOIN kv ON kv.db = t.db AND kv.key = t.key WHERE ${live('kv', '$3::int8')}`,
  },
  /** write run: plain SET / SET EX… / MSET, keys distinct and sorted (lock order: no deadlocks) */
  write: {
    text: `INSERT INTO kv (db, key, type, value, expires_at, version)
           SELECT db, key, 0, value, exp, txid_current() FROM unnest($1::int2[], $2::bytea[], $3::bytea[], $4::int8[]) AS t(db, key, value, exp)
           ON CONFLICT (db, key) DO UPDATE SET type = 0, value = excluded.value, expires_at = excluded.expires_at,
             version = txid_current()`,
  },
  /** a run of INCR-family ops: one row per op, i = its position in the run */
  incrMany: call('incr_many', 'i, status, result', 'int2[]', 'bytea[]', 'int8[]', 'int8'),
  /** a run of INCR-family ops on one key: one row (status, the key's integer before the run) */
  incrRun: call('incr_run', 'status, start', 'int2', 'bytea', 'int8[]', 'bool', 'int8'),
} satisfies Record<string, Statement>;
