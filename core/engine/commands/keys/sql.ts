/**
 * The generic key commands' statements: reads of the kv row whatever its type, and calls of
 * ./functions.ts for the writes whose reply depends on the key's state. $1 db (or, for DEL and
 * EXISTS, the arrays of (db, key) the lane batches), the last $n now.
 */
import type { Statement } from '../../key-store';
import { call } from '../function-call';
import { kWatchMark, live } from '../kv-row';

export const kKeySql = {
  /** DEL: rows deleted that were still live count (an expired key is already gone for Redis),
   *  and their positions in the key list (1-based: the keyspace event `del` on each);
   *  WATCH marks stay (transactions/functions.ts): deleting an absent key touches nothing */
  del: {
    text: `WITH d AS (DELETE FROM kv USING unnest($1::int2[], $2::bytea[]) WITH ORDINALITY AS t(db, key, i)
             WHERE kv.db = t.db AND kv.key = t.key AND kv.type <> ${kWatchMark} RETURNING kv.expires_at, t.i)
           SELECT count(*) FILTER (WHERE ${live('d', '$3::int8')})::int4,
             array_agg(d.i::int4) FILTER (WHERE ${live('d', '$3::int8')}) FROM d`,
  },
  /** EXISTS counts a key once per mention, as Redis does */
  exists: {
    text: `SELECT count(*)::int4 FROM unnest($1::int2[], $2::bytea[]) AS t(db, key)
           JOIN kv ON kv.db = t.db AND kv.key = t.key WHERE ${live('kv', '$3::int8')}`,
  },
  dbsize: {
    text: `SELECT count(*)::int4 FROM kv WHERE db = $1::int2 AND ${live('kv', '$2::int8')}`,
  },
  // both keep WATCH marks: flushing a database touches only the watched keys it holds
  flushdb: { text: `DELETE FROM kv WHERE db = $1::int2 AND type <> ${kWatchMark}` },
  flushall: call('flush_all', ''),
  type: { text: `SELECT type FROM kv WHERE db = $1::int2 AND key = $2::bytea AND ${live('kv', '$3::int8')}` },
  ttl: {
    text: `SELECT expires_at::text FROM kv WHERE db = $1::int2 AND key = $2::bytea AND ${live('kv', '$3::int8')}`,
  },
  /** $3 the deadline (absolute ms), $4 NX 1, XX 2, GT 4, LT 8 */
  expireAt: call('expire_at', '', 'int2', 'bytea', 'int8', 'int2', 'int8'),
  // a live key with a TTL. IS TRUE: no index condition on expires_at, which with few keys
  // holding a TTL in the statistics made custom plans read every such key through kv_expires_at
  persist: {
    text: `WITH u AS (UPDATE kv SET expires_at = NULL, version = txid_current()
           WHERE db = $1::int2 AND key = $2::bytea AND (expires_at > $3::int8) IS TRUE RETURNING 1)
         SELECT count(*)::int4 FROM u`,
  },
  /** RENAME ($4 false) / RENAMENX (true), in the same db */
  rename: { text: 'SELECT move_key($1::int2, $2::bytea, $1::int2, $3::bytea, $4::bool, $5::int8)' },
  /** MOVE key to db $3 */
  move: { text: 'SELECT move_key($1::int2, $2::bytea, $3::int2, $2::bytea, true, $4::int8)' },
  /** COPY $2 to ($3 db, $4 key), $5 REPLACE */
  copy: call('copy_key', '', 'int2', 'bytea', 'int2', 'bytea', 'bool', 'int8'),
  swapdb: call('swap_db', '', 'int2', 'int2', 'int8'),
  randomKey: call('random_key', '', 'int2', 'int8'),
  /** KEYS with a literal prefix: the keys in [$2, $3) */
  keysRange: {
    text: `SELECT key FROM kv WHERE db = $1::int2 AND key >= $2::bytea AND key < $3::bytea AND ${live('kv', '$4::int8')} ORDER BY key`,
  },
  /** KEYS whose prefix has no upper bound (empty, or all 0xff bytes) */
  keysFrom: {
    text: `SELECT key FROM kv WHERE db = $1::int2 AND key >= $2::bytea AND ${live('kv', '$3::int8')} ORDER BY key`,
  },
  // SCAN: p, the page; then the rest of its last hash (a cursor cannot point between equal
  // hashes). One statement, one snapshot: rows tie with p's last only when p was full.
  scanPage: {
    text: `WITH p AS MATERIALIZED (
           SELECT key, type, kv_hash(key) AS h FROM kv WHERE db = $1::int2 AND kv_hash(key) >= $2::int8 AND ${live('kv', '$4::int8')}
           ORDER BY kv_hash(key), key LIMIT $3::int4),
         l AS (SELECT h, key FROM p ORDER BY h DESC, key DESC LIMIT 1)
         SELECT key, type, h::text FROM p
         UNION ALL
         SELECT kv.key, kv.type, l.h::text FROM l JOIN kv
           ON kv.db = $1::int2 AND kv_hash(kv.key) = l.h AND kv.key > l.key AND ${live('kv', '$4::int8')}`,
  },
  // OBJECT: the value only when it could be an int (≤ 20 bytes); card read by name so it may be absent
  object: {
    text: `SELECT type, length(value)::int8, CASE WHEN length(value) <= 20 THEN value END,
           CASE WHEN type <> 0 THEN (to_jsonb(kv.*) ->> 'card') END
         FROM kv WHERE db = $1::int2 AND key = $2::bytea AND ${live('kv', '$3::int8')}`,
  },
  memoryUsage: {
    text: 'SELECT type, bytes::text, small FROM key_size($1::int2, $2::bytea, $3::int8) WHERE type IS NOT NULL',
  },
} satisfies Record<string, Statement>;
