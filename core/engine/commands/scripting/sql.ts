/**
 * Statements of the scripting family: the call transaction's first and last (./functions.ts),
 * the script cache (EVAL bodies, SCRIPT LOAD/EXISTS/FLUSH) and the function libraries.
 */
import type { Statement } from '../../key-store';
import { call } from '../function-call';
import { kWatchMark } from '../kv-row';

/**
 * What both begin statements start with, their sha and body parameters given: whether EVALSHA's
 * sha is still stored (c), the running-call advisory lock of the call's kind once it is (g), an
 * EVAL body stored (st).
 */
const callHead = (sha: string, body: string): string => `c AS MATERIALIZED (SELECT ${sha}::text IS NULL OR ${body}::bytea IS NOT NULL
          OR EXISTS (SELECT 1 FROM scripts sc WHERE sc.sha = ${sha}::text) AS known),
      g AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(script_class(), CASE WHEN ${sha}::text IS NULL THEN 2 ELSE 1 END)
          FROM c WHERE c.known),
      st AS (INSERT INTO scripts (sha, body) SELECT ${sha}::text, ${body}::bytea WHERE ${body}::bytea IS NOT NULL ON CONFLICT (sha) DO NOTHING)`;

export const kScriptingSql = {
  /**
   * The call's first statement: EVALSHA's sha still stored (`known`; when not, nothing else is
   * done), the running-call advisory lock of its kind (./functions.ts), KEYS locked (FOR UPDATE of
   * their kv rows, all of them before any placeholder, which an absent key gets: the number made
   * is `placed`, and `end` is sent only when it is above 0), an EVAL body stored, the
   * function-library version (FCALL). KEYS distinct, one db, sorted by the caller (call.ts), as
   * for `lock` below. One SQL statement, not the PL/pgSQL function script_begin it replaces: that
   * ran ~20 statements of its own per BullMQ call (a FOR UPDATE per key, an INSERT per absent key,
   * a DISTINCT, the sha, the version), each an executor start and end (docs/BENCHMARKS.md
   * "Where a BullMQ job's Postgres CPU went").
   */
  begin: {
    text: `WITH ${callHead('$4', '$5')},
      l AS MATERIALIZED (SELECT k.db, k.key FROM unnest($1::int2[], $2::bytea[]) AS t(db, key)
          JOIN kv k ON k.db = t.db AND k.key = t.key WHERE (SELECT count(*) FROM g) > 0 FOR UPDATE OF k),
      p AS (INSERT INTO kv (db, key, type, expires_at, card, version)
            SELECT t.db, t.key, ${kWatchMark}, -$3::int8, 0, txid_current() FROM unnest($1::int2[], $2::bytea[]) AS t(db, key)
             WHERE (SELECT count(*) FROM l) >= 0 AND (SELECT count(*) FROM g) > 0
               AND NOT EXISTS (SELECT 1 FROM l WHERE l.db = t.db AND l.key = t.key)
            ON CONFLICT (db, key) DO NOTHING RETURNING 1)
      SELECT (SELECT v.version FROM function_version v) AS lib_version, (SELECT count(*) FROM p)::int4 AS placed, c.known FROM c`,
  },
  /**
   * `begin` for a call without KEYS: the same columns, and kv not named at all. A statement that
   * names kv holds a lock on the table until COMMIT (the INSERT's RowExclusiveLock, even for no
   * rows), so FLUSHALL's TRUNCATE, and every command behind it on its lane, waited for a keyless
   * runaway script (`while 1 do redis.call('ping') end`) until it was killed: 5 s and more
   * against 172 ms with the PL/pgSQL script_begin, which skipped kv without KEYS. $1 sha, $2 body.
   */
  beginNoKeys: {
    text: `WITH ${callHead('$1', '$2')}
      SELECT (SELECT v.version FROM function_version v) AS lib_version, 0::int4 AS placed, c.known FROM c
       WHERE (SELECT count(*) FROM g) >= 0`,
  },
  /** before COMMIT: the placeholders of absent KEYS go. The statement itself, not script_end(): a
   * LANGUAGE sql function that is not inlined is planned at every call (~350 µs of Postgres time
   * per call under the EVALSHA benchmark's load against ~46 µs for the DELETE, pg_stat_statements);
   * a prepared statement keeps its generic plan */
  end: {
    text: `DELETE FROM kv k USING unnest($1::int2[], $2::bytea[]) AS t(db, key)
      WHERE k.db = t.db AND k.key = t.key AND k.type = ${kWatchMark} AND k.card = 0 AND k.version = txid_current()`,
  },
  /**
   * Ahead of a command touching keys the call did not declare and has not touched yet
   * (call-host.ts): locks them as `begin` locks KEYS, in (db, key) order, an absent key
   * getting a placeholder; the number of placeholders made, which `end` drops. In the call's
   * REPEATABLE READ transaction, a row changed or deleted since the snapshot makes FOR UPDATE
   * raise 40001, and a key created since makes the placeholder's ON CONFLICT raise it: the call
   * starts over. One SQL statement, not a PL/pgSQL loop: it goes with many redis.call.
   */
  lock: {
    // keys distinct, one db, sorted by the caller (call-host.ts): no ORDER BY here, since with
    // enable_sort = off an ORDER BY (db, key) walked all of kv_pkey (30 ms a call at 20k keys);
    // the nested loop over unnest locks in the array's order
    text: `WITH l AS MATERIALIZED (SELECT k.db, k.key FROM unnest($1::int2[], $2::bytea[]) AS t(db, key)
        JOIN kv k ON k.db = t.db AND k.key = t.key FOR UPDATE OF k),
      p AS (INSERT INTO kv (db, key, type, expires_at, card, version)
            SELECT t.db, t.key, ${kWatchMark}, -$3::int8, 0, txid_current() FROM unnest($1::int2[], $2::bytea[]) AS t(db, key)
             WHERE NOT EXISTS (SELECT 1 FROM l WHERE l.db = t.db AND l.key = t.key)
            ON CONFLICT (db, key) DO NOTHING RETURNING 1)
      SELECT (SELECT count(*) FROM p)::int4`,
  },
  /** a batch's first statement (workers/storage/script-batch.ts) */
  batchBegin: call('script_batch_begin', 'lib_version, placed, unknown', 'int2[]', 'bytea[]', 'int8', 'int4', 'text[]', 'text[]', 'bytea[]'),
  /** a batched call's first write, and its end: the session-level "written" marker (./functions.ts) */
  callWrote: { text: 'SELECT script_call_wrote()' },
  callUnwrote: { text: 'SELECT script_call_unwrote()' },
  /** with the call's first write, in its pipeline: other instances' KILL now answer UNKILLABLE */
  wrote: { text: 'SELECT script_wrote()' },
  /** SCRIPT/FUNCTION KILL: the calls running on any instance (kind 1 EVAL, 2 FCALL; written; its transaction) */
  running: { text: 'SELECT kind, written, call FROM scripts_running()' },
  /** EVALSHA / SCRIPT EXISTS of a sha this process has not seen */
  body: { text: 'SELECT body FROM scripts WHERE sha = $1::text' },
  /** INFO memory: stored scripts, their bytes, the libraries' bytes */
  sizes: {
    text: `SELECT (SELECT count(*) FROM scripts)::int8, (SELECT coalesce(sum(length(body)), 0) FROM scripts)::int8,
      (SELECT coalesce(sum(length(code)), 0) FROM function_libraries)::int8`,
  },
  exist: { text: 'SELECT s.sha FROM scripts s WHERE s.sha = ANY ($1::text[])' },
  store: { text: 'INSERT INTO scripts (sha, body) VALUES ($1::text, $2::bytea) ON CONFLICT (sha) DO NOTHING' },
  flush: { text: 'DELETE FROM scripts' },
  /** every library, with the version they make (one snapshot: a statement of its own) */
  libraries: {
    text: 'SELECT v.version, l.name, l.code FROM function_version v LEFT JOIN function_libraries l ON true ORDER BY l.name',
  },
  /** FUNCTION LOAD/DELETE/FLUSH/RESTORE run after this, in one transaction: one change at a time, everywhere */
  lockVersion: { text: 'SELECT v.version FROM function_version v FOR UPDATE' },
  bumpVersion: { text: 'UPDATE function_version SET version = version + 1 RETURNING version' },
  putLibrary: {
    text: 'INSERT INTO function_libraries (name, code) VALUES ($1::text, $2::bytea) ON CONFLICT (name) DO UPDATE SET code = excluded.code',
  },
  deleteLibrary: { text: 'DELETE FROM function_libraries WHERE name = $1::text' },
  flushLibraries: { text: 'DELETE FROM function_libraries' },
} satisfies Record<string, Statement>;
