/**
 * The blocking pops' server-side functions (docs/blocking.md). blocked_waiters (schema v9) holds
 * one row per key of each blocked call, numbered by a sequence in the order the calls blocked.
 * Every wake-up reaches every waiter of a key (all workers, all instances); each re-runs its pop
 * with its number, and the pop serves it only when no live waiter with a smaller number waits on
 * that key (b_ahead): the element goes to the first, whoever's wake-up arrives first.
 *
 *   first call, p_seq NULL ─▶ for each key in order: lock it; another type → WRONGTYPE;
 *                            non-empty and nobody ahead → pop, rows (1, key, …), then (5, key, left)
 *                            (6 instead of 5: the pop created a key, BLMOVE's destination)
 *                            └─ nothing served: register (one number for all keys) → (0, n = seq)
 *   retry, p_seq = its number ─▶ the same, but another type is skipped (Redis 7.0 keeps the
 *                            client blocked) and served → its rows go in the same transaction
 *   p_block false (MULTI, scripts): the non-blocking form, nobody ahead checked, nothing registered
 *
 * The element leaves the list only in the transaction that also removes the waiter, and the
 * worker sends that statement only while the client is connected (ops.ts StmtOp.guard), so a
 * waiter that went away never takes an element.
 */
import { lockKey } from '../collection/functions';

/** The row type of a blocking pop's results: status, key, the pop's columns, n (seq or what is left). */
export interface BlockingPop {
  /** function name */
  fn: string;
  /** kv.type of the keys it pops */
  type: number;
  /** parameters between p_keys and p_now, declared: 'p_left bool, p_count int8' */
  params: string;
  /** the pop of key `mk`: a set-returning call whose columns are status then `columns` */
  pop: string;
  columns: [string, string][];
  /** statements run first for key mk (LMOVE locks source and destination in key order) */
  prelock?: string;
  /**
   * true after the pop when it created a key (BLMOVE's destination: 1 element, not the source):
   * the last row's status is 6 instead of 5, for `new` (the pop reports its own presence: a probe
   * sent before it could see another moment)
   */
  created?: string;
}

export function blockingPopFunction(s: string, p: BlockingPop): string {
  const nulls = p.columns.map(([c]) => `${c} := NULL; `).join('');
  const wrong = `IF v_seq IS NULL THEN status := 2; key := mk; ${nulls}n := NULL; RETURN NEXT; RETURN; END IF; live := false;`;
  return `CREATE OR REPLACE FUNCTION ${s}.${p.fn}(p_db int2, p_keys bytea[], ${p.params}, p_now int8, p_seq int8, p_block bool)
     RETURNS TABLE (status int2, key bytea, ${p.columns.map(([c, t]) => `${c} ${t}`).join(', ')}, n int8) LANGUAGE plpgsql AS $f$
     #variable_conflict use_column
     DECLARE mk bytea; r record; live bool; v_seq int8 := p_seq; rest int8;
     BEGIN
       FOREACH mk IN ARRAY p_keys LOOP
         ${p.prelock ?? ''}
         ${lockKey(s, p.type, 'mk', 'r', 'live', wrong)}
         IF live AND (NOT (p_block OR v_seq IS NOT NULL) OR NOT ${s}.b_ahead(p_db, mk, v_seq)) THEN
           RETURN QUERY SELECT x.status, mk, ${p.columns.map(([c]) => `x.${c}`).join(', ')}, NULL::int8 FROM ${p.pop} x;
           IF v_seq IS NOT NULL THEN DELETE FROM ${s}.blocked_waiters w WHERE w.seq = v_seq; END IF;
           SELECT k.card INTO rest FROM ${s}.kv k WHERE k.db = p_db AND k.key = mk;
           status := ${p.created === undefined ? '5' : `CASE WHEN ${p.created} THEN 6 ELSE 5 END`}; key := mk; ${nulls}n := coalesce(rest, 0); RETURN NEXT;
           RETURN;
         END IF;
       END LOOP;
       IF v_seq IS NULL AND p_block THEN
         v_seq := ${s}.b_register(p_db, p_keys, NULL);
       END IF;
       status := 0; key := NULL; ${nulls}n := v_seq; RETURN NEXT;
     END $f$`;
}

export function blockingFunctions(s: string): string[] {
  return [
    // Is a live waiter ahead of p_seq (of anybody, when NULL) in the queue of this key and group
    // (grp NULL: the pops' queue; XREADGROUP's readers queue per group)? A row whose lane backend
    // is gone (its worker thread or instance died without withdrawing) is deleted here.
    `CREATE OR REPLACE FUNCTION ${s}.b_ahead_in(p_db int2, p_key bytea, p_grp bytea, p_seq int8) RETURNS bool LANGUAGE plpgsql AS $f$
     DECLARE w record;
     BEGIN
       LOOP
         SELECT b.seq, b.pid, b.started INTO w FROM ${s}.blocked_waiters b
           WHERE b.db = p_db AND b.key = p_key AND b.grp IS NOT DISTINCT FROM p_grp AND (p_seq IS NULL OR b.seq < p_seq)
           ORDER BY b.seq LIMIT 1;
         IF NOT FOUND THEN RETURN false; END IF;
         IF EXISTS (SELECT 1 FROM pg_stat_get_activity(w.pid) a WHERE a.backend_start = w.started) THEN RETURN true; END IF;
         DELETE FROM ${s}.blocked_waiters WHERE seq = w.seq;
       END LOOP;
     END $f$`,
    `CREATE OR REPLACE FUNCTION ${s}.b_ahead(p_db int2, p_key bytea, p_seq int8) RETURNS bool LANGUAGE sql AS $f$
       SELECT ${s}.b_ahead_in(p_db, p_key, NULL, p_seq)
     $f$`,
    // A new waiter on each of p_keys, in the queue of group p_grp (NULL: the pops'): its number.
    `CREATE OR REPLACE FUNCTION ${s}.b_register(p_db int2, p_keys bytea[], p_grp bytea) RETURNS int8 LANGUAGE plpgsql AS $f$
     DECLARE v_seq int8 := nextval('${s}.blocked_waiters_seq');
     BEGIN
       INSERT INTO ${s}.blocked_waiters (db, key, seq, pid, started, grp)
         SELECT DISTINCT p_db, k, v_seq, a.pid, a.backend_start, p_grp FROM unnest(p_keys) k, pg_stat_get_activity(pg_backend_pid()) a;
       RETURN v_seq;
     END $f$`,
    // A blocked call ends unserved (timeout, CLIENT UNBLOCK, disconnect): its rows go; the keys
    // it leaves that hold elements and have other waiters are returned, to be woken (the others
    // may have been told "not first" while this one was ahead of them).
    `CREATE OR REPLACE FUNCTION ${s}.b_withdraw(p_seq int8, p_now int8) RETURNS TABLE (db int2, key bytea) LANGUAGE sql AS $f$
       WITH d AS (DELETE FROM ${s}.blocked_waiters w WHERE w.seq = p_seq RETURNING w.db, w.key)
       SELECT d.db, d.key FROM d JOIN ${s}.kv k ON k.db = d.db AND k.key = d.key
         WHERE k.card > 0 AND (k.expires_at IS NULL OR k.expires_at > p_now)
           AND EXISTS (SELECT 1 FROM ${s}.blocked_waiters o WHERE o.db = d.db AND o.key = d.key AND o.seq <> p_seq)
     $f$`,
  ];
}
