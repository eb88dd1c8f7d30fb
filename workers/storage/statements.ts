/**
 * The SQL each batch kind runs. Table names are unqualified: every lane connection starts with
 * search_path set to the keyspace schema (core/primary/postgres/schema.ts startupOptions).
 * Every read filters expired rows (lazy expiry): `expires_at IS NULL OR expires_at > now`.
 */
import type { Statement } from '../../core/engine/key-store';
import { kWatchMark } from '../../core/engine/commands/kv-row';

export type { Statement };

const live = (t: string) => `(${t}.expires_at IS NULL OR ${t}.expires_at > $3::int8)`;

export const kSql = {
  /** read run: one row per requested key that exists; i = position in the flattened request */
  read: {
    name: 'pr_read',
    text: `SELECT t.i::int4, kv.type, kv.value FROM unnest($1::int2[], $2::bytea[]) WITH ORDINALITY AS t(db, key, i)
           JOIN kv ON kv.db = t.db AND kv.key = t.key WHERE ${live('kv')}`,
  },
  /** write run: plain SET / SET EX… / MSET, keys distinct and sorted (lock order: no deadlocks) */
  write: {
    name: 'pr_write',
    text: `INSERT INTO kv (db, key, type, value, expires_at, version)
           SELECT db, key, 0, value, exp, txid_current() FROM unnest($1::int2[], $2::bytea[], $3::bytea[], $4::int8[]) AS t(db, key, value, exp)
           ON CONFLICT (db, key) DO UPDATE SET type = 0, value = excluded.value, expires_at = excluded.expires_at,
             version = txid_current()`,
  },
  setCond: { name: 'pr_set_cond', text: 'SELECT status, old FROM set_cond($1::int2, $2::bytea, $3::bytea, $4::int8, $5::int2, $6::bool, $7::bool, $8::int8)' },
  /** a run of INCR-family ops: one row per op, i = its position in the run */
  incrMany: { name: 'pr_incr_many', text: 'SELECT i, status, result FROM incr_many($1::int2[], $2::bytea[], $3::int8[], $4::int8)' },
  /** DEL: rows deleted that were still live count (an expired key is already gone for Redis);
   *  WATCH marks stay (core/engine/commands/kv-row.ts): deleting an absent key touches nothing */
  del: {
    name: 'pr_del',
    text: `WITH d AS (DELETE FROM kv USING unnest($1::int2[], $2::bytea[]) AS t(db, key)
             WHERE kv.db = t.db AND kv.key = t.key AND kv.type <> ${kWatchMark} RETURNING kv.expires_at)
           SELECT count(*) FILTER (WHERE expires_at IS NULL OR expires_at > $3::int8)::int4 FROM d`,
  },
  /** EXISTS counts a key once per mention, as Redis does */
  exists: {
    name: 'pr_exists',
    text: `SELECT count(*)::int4 FROM unnest($1::int2[], $2::bytea[]) AS t(db, key)
           JOIN kv ON kv.db = t.db AND kv.key = t.key WHERE ${live('kv')}`,
  },
  /** WATCH: per key (i = its position) the version EXEC compares, and whether it is a mark */
  watch: { name: 'pr_watch', text: 'SELECT i, ver, marked FROM watch_keys($1::int2[], $2::bytea[], $3::int8)' },
  watchCheck: { name: 'pr_watch_check', text: 'SELECT watch_check($1::int2[], $2::bytea[], $3::int8[], $4::int8)' },
  watchRelease: { name: 'pr_watch_release', text: 'SELECT watch_release($1::int2[], $2::bytea[], $3::int8[])' },
  dbsize: {
    name: 'pr_dbsize',
    text: 'SELECT count(*)::int4 FROM kv WHERE db = $1::int2 AND (expires_at IS NULL OR expires_at > $2::int8)',
  },
  // both keep WATCH marks: flushing a database touches only the watched keys it holds
  flushdb: { name: 'pr_flushdb', text: `DELETE FROM kv WHERE db = $1::int2 AND type <> ${kWatchMark}` },
  flushall: { name: 'pr_flushall', text: 'SELECT flush_all()' },
} satisfies Record<string, Statement>;
