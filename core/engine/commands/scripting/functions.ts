/**
 * The server-side functions of a script or function call's transaction (docs/scripting.md):
 *
 *   BEGIN ISOLATION LEVEL REPEATABLE READ
 *   begin (sql.ts)        lock each declared key's kv row in (db, key) order; an absent key gets
 *                         a placeholder row (a WATCH mark with no watcher: card 0) so a client
 *                         creating it meanwhile waits for the commit instead of slipping in;
 *                         stores an EVAL body; returns the function-library version (FCALL) and
 *                         how many placeholders it made. EVALSHA (a sha, no body): first checks
 *                         that the script is still stored (`known`), so a SCRIPT FLUSH on another
 *                         instance, committed before this snapshot, makes the call NOSCRIPT.
 *                         One SQL statement (a batch's is script_batch_begin, below)
 *   … each redis.call's own statements …
 *   end (sql.ts)          drops the placeholders the script left as they were (only sent when
 *   COMMIT                begin made some; it goes in one pipeline with COMMIT)
 *
 * A placeholder is what every command already treats as a missing key (transactions/functions.ts:
 * readers see it expired, creators go through it, DEL/FLUSH/the sweeper skip it), and it is never
 * committed, so nobody else ever sees one.
 *
 * Running scripts, seen from every instance (SCRIPT KILL / FUNCTION KILL, ./kill.ts): begin
 * also takes a shared transaction-scoped advisory lock (class, 1) for EVAL or (class, 2) for FCALL,
 * and the first write of the call takes (class, 3) (script_wrote, pipelined with that write). Shared
 * locks never wait; they go with the transaction, so pg_locks shows each running call, its kind
 * and whether it wrote (scripts_running), with no table written and no round trip added. The class
 * is per schema: instances on other schemas of the database are not counted.
 */
import { createHash } from 'node:crypto';
import { kWatchMark } from '../kv-row';

/** The advisory-lock class of this schema's running calls (31 bits: pg_locks.classid is an oid). */
export function scriptLockClass(schema: string): number {
  return createHash('sha1').update(`postresp.scripts:${schema}`).digest().readUInt32BE(0) & 0x7fffffff;
}

export function scriptingFunctions(s: string): string[] {
  const cls = scriptLockClass(s);
  // each of (p_dbs, p_keys) locked, or a placeholder made (counted in `placed`), in (db, key) order
  const lockKeys = `FOR w IN SELECT DISTINCT t.db, t.key FROM unnest(p_dbs, p_keys) AS t(db, key) ORDER BY t.db, t.key LOOP
         LOOP
           PERFORM 1 FROM ${s}.kv k WHERE k.db = w.db AND k.key = w.key FOR UPDATE;
           EXIT WHEN FOUND;
           INSERT INTO ${s}.kv (db, key, type, expires_at, card, version)
             VALUES (w.db, w.key, ${kWatchMark}, -p_now, 0, txid_current()) ON CONFLICT (db, key) DO NOTHING;
           IF FOUND THEN
             placed := placed + 1;
             EXIT;
           END IF;
         END LOOP;
       END LOOP;`;
  return [
    // the class of the running-call locks, for statements (sql.ts `begin`), which know no schema:
    // an IMMUTABLE one-line SQL function, inlined as the constant when the statement is planned
    `CREATE OR REPLACE FUNCTION ${s}.script_class() RETURNS int4 LANGUAGE sql IMMUTABLE AS $f$ SELECT ${cls} $f$`,
    // A batch of calls sharing one transaction (workers/storage/script-batch.ts): every call's keys
    // locked at once in (db, key) order (two batches never deadlock on declared keys), every
    // EVALSHA's sha checked (`unknown`: bit i-1 set when p_checks[i] is no longer stored), every
    // EVAL body stored. The kind lock is transaction-level as in `begin`; "written" is a
    // session-level lock per call (script_call_wrote / script_call_unwrote) so that a call after a
    // writer in the same transaction shows as killable again.
    `CREATE OR REPLACE FUNCTION ${s}.script_batch_begin(p_dbs int2[], p_keys bytea[], p_now int8, p_kind int4,
       p_checks text[], p_store_shas text[], p_store_bodies bytea[], OUT lib_version int8, OUT placed int4, OUT unknown int4)
     LANGUAGE plpgsql AS $f$
     DECLARE w record;
     BEGIN
       placed := 0;
       unknown := coalesce((SELECT bit_or(1 << (t.i - 1)::int4) FROM unnest(p_checks) WITH ORDINALITY AS t(sha, i)
                             WHERE NOT EXISTS (SELECT 1 FROM ${s}.scripts sc WHERE sc.sha = t.sha)), 0);
       PERFORM pg_advisory_xact_lock_shared(${cls}, p_kind);
       ${lockKeys}
       INSERT INTO ${s}.scripts (sha, body)
         SELECT DISTINCT ON (t.sha) t.sha, t.body FROM unnest(p_store_shas, p_store_bodies) AS t(sha, body)
         ON CONFLICT (sha) DO NOTHING;
       lib_version := (SELECT v.version FROM ${s}.function_version v);
     END $f$`,
    `CREATE OR REPLACE FUNCTION ${s}.script_call_wrote() RETURNS void LANGUAGE sql AS $f$
       SELECT pg_advisory_lock_shared(${cls}, 3)
     $f$`,
    `CREATE OR REPLACE FUNCTION ${s}.script_call_unwrote() RETURNS bool LANGUAGE sql AS $f$
       SELECT pg_advisory_unlock_shared(${cls}, 3)
     $f$`,
    `CREATE OR REPLACE FUNCTION ${s}.script_end(p_dbs int2[], p_keys bytea[])
     RETURNS void LANGUAGE sql AS $f$
       DELETE FROM ${s}.kv k USING unnest(p_dbs, p_keys) AS t(db, key)
        WHERE k.db = t.db AND k.key = t.key AND k.type = ${kWatchMark} AND k.card = 0 AND k.version = txid_current()
     $f$`,
    `CREATE OR REPLACE FUNCTION ${s}.script_wrote() RETURNS void LANGUAGE sql AS $f$
       SELECT pg_advisory_xact_lock_shared(${cls}, 3)
     $f$`,
    // one row per running call of this schema, on any instance: kind 1 EVAL, 2 FCALL; call: its
    // transaction (a connection's next call is another one)
    `CREATE OR REPLACE FUNCTION ${s}.scripts_running(OUT kind int4, OUT written bool, OUT call text) RETURNS SETOF record
     LANGUAGE sql STABLE AS $f$
       SELECT max(l.objid::int8) FILTER (WHERE l.objid::int8 IN (1, 2))::int4, bool_or(l.objid::int8 = 3), l.virtualtransaction
         FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.classid = ${cls}::oid AND l.objsubid = 2
          AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
        GROUP BY l.virtualtransaction
     $f$`,
  ];
}
