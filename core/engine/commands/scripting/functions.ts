/**
 * The server-side functions of a script or function call's transaction (docs/scripting.md):
 *
 *   BEGIN ISOLATION LEVEL REPEATABLE READ
 *   script_begin(KEYS…)   lock each declared key's kv row in (db, key) order; an absent key gets
 *                         a placeholder row (a WATCH mark with no watcher: card 0) so a client
 *                         creating it meanwhile waits for the commit instead of slipping in;
 *                         stores an EVAL body; returns the function-library version (FCALL) and
 *                         how many placeholders it made. EVALSHA (a sha, no body): first checks
 *                         that the script is still stored (`known`), so a SCRIPT FLUSH on another
 *                         instance, committed before this snapshot, makes the call NOSCRIPT
 *   … each redis.call's own statements …
 *   script_end(KEYS…)     drops the placeholders the script left as they were (only sent when
 *   COMMIT                script_begin made some; it goes in one pipeline with COMMIT)
 *
 * A placeholder is what every command already treats as a missing key (transactions/functions.ts:
 * readers see it expired, creators go through it, DEL/FLUSH/the sweeper skip it), and it is never
 * committed, so nobody else ever sees one.
 */
import { kWatchMark } from '../kv-row';

export function scriptingFunctions(s: string): string[] {
  return [
    `CREATE OR REPLACE FUNCTION ${s}.script_begin(p_dbs int2[], p_keys bytea[], p_now int8, p_sha text, p_body bytea,
       OUT lib_version int8, OUT placed int4, OUT known bool)
     LANGUAGE plpgsql AS $f$
     DECLARE w record;
     BEGIN
       placed := 0;
       known := true;
       IF p_sha IS NOT NULL AND p_body IS NULL THEN
         known := EXISTS (SELECT 1 FROM ${s}.scripts sc WHERE sc.sha = p_sha);
         IF NOT known THEN RETURN; END IF;
       END IF;
       -- (db, key) order, like every multi-row writer: two scripts on the same keys never deadlock
       FOR w IN SELECT DISTINCT t.db, t.key FROM unnest(p_dbs, p_keys) AS t(db, key) ORDER BY t.db, t.key LOOP
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
       END LOOP;
       IF p_body IS NOT NULL THEN
         INSERT INTO ${s}.scripts (sha, body) VALUES (p_sha, p_body) ON CONFLICT (sha) DO NOTHING;
       END IF;
       lib_version := (SELECT v.version FROM ${s}.function_version v);
     END $f$`,
    `CREATE OR REPLACE FUNCTION ${s}.script_end(p_dbs int2[], p_keys bytea[])
     RETURNS void LANGUAGE sql AS $f$
       DELETE FROM ${s}.kv k USING unnest(p_dbs, p_keys) AS t(db, key)
        WHERE k.db = t.db AND k.key = t.key AND k.type = ${kWatchMark} AND k.card = 0 AND k.version = txid_current()
     $f$`,
  ];
}
