/**
 * WATCH / EXEC across clients and PostRESP instances, with the state in Postgres.
 *
 * A key live at WATCH time is watched by its kv.version (every write stamps txid_current()).
 * A key absent (or expired) at WATCH time gets a watch mark: a kv row that every reader already
 * treats as missing because it has expired (all reads filter `expires_at > now`):
 *
 *   type = -1   expires_at = -(ms of its latest WATCH) ≤ 0   card = sessions watching it
 *   version = txid of the WATCH that made it               value, head = NULL
 *
 * Creating the key has to go through that row, so a creation leaves its trace there for free:
 *   - SET runs upsert (ON CONFLICT DO UPDATE): the mark becomes the string, version changes;
 *   - set_cond, INCR, APPEND…, collection writers (createKey) replace or delete it;
 *   - a creation that EXEC's check finds in progress waits on the mark's row lock (or the
 *     check waits on the creator's): no concurrent creation slips past the check.
 * EXEC's check then passes a key only if its row still has the version WATCH saw (the mark's,
 * or the live key's while live): created, created-and-deleted, created-and-expired all fail.
 * Writers pay nothing new on the hot path: no trigger, no extra table, no extra index.
 *
 * What must not remove a mark (Redis does not count it as touching the key): DEL/UNLINK of an
 * absent key, FLUSHDB, FLUSHALL, SWAPDB without the key on either side, the expiry sweeper,
 * collection writes that leave the key absent (SREM, LPOP… lockKey). Those skip type -1 rows;
 * FLUSHALL keeps them across its TRUNCATE (flush_all, keys/functions.ts). Marks sort first in kv_expires_at
 * (expires_at ≤ 0), so finding them is an index range scan, and the sweeper skips them by range.
 *
 * A mark goes when its last watcher is done (EXEC, DISCARD, UNWATCH, RESET, disconnect:
 * watch_release), or, when its watchers vanished without saying so (a crashed process), when
 * the sweeper finds it unwatched for an hour (sweeper.ts); a WATCH held longer than that may
 * then fail its EXEC.
 */
import { expired, kWatchMark, live } from '../kv-row';

export function transactionFunctions(s: string): string[] {
  // keys in (db, key) order: every multi-row writer locks in that order, so no deadlocks
  const inOrder = `SELECT t.db, t.key, t.v, t.n FROM unnest(p_dbs, p_keys, p_versions) WITH ORDINALITY AS t(db, key, v, n) ORDER BY t.db, t.key`;
  return [
    // WATCH: per key (i = its position), the version to compare at EXEC and whether it is a mark
    `CREATE OR REPLACE FUNCTION ${s}.watch_keys(p_dbs int2[], p_keys bytea[], p_now int8)
     RETURNS TABLE (i int4, ver int8, marked bool) LANGUAGE plpgsql AS $f$
     DECLARE w record; r record;
     BEGIN
       FOR w IN SELECT t.db, t.key, t.n FROM unnest(p_dbs, p_keys) WITH ORDINALITY AS t(db, key, n) ORDER BY t.db, t.key LOOP
         i := w.n;
         LOOP
           SELECT k.type, k.expires_at, k.version INTO r FROM ${s}.kv k WHERE k.db = w.db AND k.key = w.key;
           IF FOUND AND ${live('r')} THEN ver := r.version; marked := false; EXIT; END IF;
           -- expired but not yet swept: Redis ignores its deletion, so it gives way to a mark
           IF FOUND AND r.type <> ${kWatchMark} THEN
             DELETE FROM ${s}.kv k WHERE k.db = w.db AND k.key = w.key AND k.type <> ${kWatchMark} AND ${expired('k')};
           END IF;
           INSERT INTO ${s}.kv AS k (db, key, type, expires_at, card, version)
             VALUES (w.db, w.key, ${kWatchMark}, -p_now, 1, txid_current())
             ON CONFLICT (db, key) DO UPDATE SET card = k.card + 1, expires_at = least(k.expires_at, excluded.expires_at)
               WHERE k.type = ${kWatchMark}
             RETURNING k.version INTO ver;
           IF FOUND THEN marked := true; EXIT; END IF;
           -- someone created the key meanwhile: decide again
         END LOOP;
         RETURN NEXT;
       END LOOP;
     END $f$`,
    // EXEC's check: raises PRW01 (the lane reads it as "watched key changed") unless every key's
    // row still has the version WATCH saw and is live or still the mark. FOR UPDATE holds the
    // rows, marks included, until COMMIT: no writer slips in between check and execution, a
    // creator of a marked key waits for EXEC, and two EXECs watching one key run one after the
    // other (FOR SHARE let both pass the check, then deadlock on their writes).
    // One lookup per key: a join ordered by (db, key) walked all of kv_pkey (enable_sort = off
    // prices the index order below a sort of a few rows): 418 ms an EXEC with 300k keys.
    `CREATE OR REPLACE FUNCTION ${s}.watch_check(p_dbs int2[], p_keys bytea[], p_versions int8[], p_now int8)
     RETURNS void LANGUAGE plpgsql AS $f$
     DECLARE changed bool; l record;
     BEGIN
       FOR l IN ${inOrder} LOOP
         PERFORM 1 FROM ${s}.kv k WHERE k.db = l.db AND k.key = l.key FOR UPDATE;
       END LOOP;
       SELECT EXISTS (
         SELECT 1 FROM unnest(p_dbs, p_keys, p_versions) AS w(db, key, version)
         LEFT JOIN ${s}.kv ON kv.db = w.db AND kv.key = w.key AND (kv.type = ${kWatchMark} OR ${live('kv')})
         WHERE kv.version IS DISTINCT FROM w.version) INTO changed;
       IF changed THEN RAISE EXCEPTION 'watched key changed' USING ERRCODE = 'PRW01'; END IF;
     END $f$`,
    // a session stops watching marked keys: one watcher fewer, the mark goes with the last one
    // (a mark with another version is someone else's: the key was created since, or re-marked)
    `CREATE OR REPLACE FUNCTION ${s}.watch_release(p_dbs int2[], p_keys bytea[], p_versions int8[])
     RETURNS void LANGUAGE plpgsql AS $f$
     DECLARE w record; n int8;
     BEGIN
       FOR w IN ${inOrder} LOOP
         UPDATE ${s}.kv k SET card = k.card - 1
           WHERE k.db = w.db AND k.key = w.key AND k.type = ${kWatchMark} AND k.version = w.v RETURNING k.card INTO n;
         IF FOUND AND n <= 0 THEN
           DELETE FROM ${s}.kv k WHERE k.db = w.db AND k.key = w.key AND k.type = ${kWatchMark} AND k.version = w.v;
         END IF;
       END LOOP;
     END $f$`,
  ];
}
