/**
 * PL/pgSQL shared by the collection families (hashes, lists, sets, zsets): the pieces their
 * functions.ts files build from, and the functions they have in common, generated from the
 * family's table (collection/sql.ts CollectionTable). Each write command is one PL/pgSQL
 * function: one round trip, exact when other lanes or instances write the same key (the kv row
 * is locked first), and one transaction.
 *
 *   lock the kv row ─▶ expired? delete it (trigger kv_deleted) ─▶ other type? status 2 (WRONGTYPE)
 *        │ missing and the command creates: INSERT kv … ON CONFLICT (over a WATCH mark), else decide again
 *        ▼
 *   change the family's rows ─▶ kv.card / head / version updated, or the kv row deleted when
 *                               the collection became empty
 *
 * Status codes every function returns first: 0 = nothing done / missing, 1 = done, 2 = WRONGTYPE,
 * then family-specific codes (documented beside each function).
 */
import { expired, kWatchMark } from '../kv-row';
import type { CollectionTable } from './sql';

/**
 * PL/pgSQL that locks key `keyVar` of family `type` for a write: afterwards `live` says whether
 * it exists with that type and `r` holds its kv row (card, head). Returns status 2 on another
 * type; deletes the key when it has expired (its rows go with it: trigger kv_deleted), but not a
 * WATCH mark (an expired row of type -1): only creating the key may replace it (createKey).
 * Needs `r record; live bool;` declared and p_db, p_now in scope; `extra` selects more kv columns.
 */
export function lockKey(s: string, type: number, keyVar = 'p_key', r = 'r', live = 'live', onWrong = 'status := 2; RETURN;',
  extra = ''): string {
  return `SELECT k.type, k.expires_at, k.card, k.head${extra} INTO ${r} FROM ${s}.kv k
        WHERE k.db = p_db AND k.key = ${keyVar} FOR NO KEY UPDATE;
      IF NOT FOUND THEN ${live} := false;
      ELSIF ${expired(r)} THEN
        IF ${r}.type <> ${kWatchMark} THEN DELETE FROM ${s}.kv WHERE db = p_db AND key = ${keyVar}; END IF; ${live} := false;
      ELSIF ${r}.type <> ${type} THEN ${onWrong}
      ELSE ${live} := true; END IF;`;
}

/**
 * Inside a LOOP: creates the kv row of a new collection, or goes round again when another session
 * just did. A WATCH mark in its place (lockKey leaves it) becomes the key: the watchers see it.
 */
export function createKey(s: string, type: number, card: string, head = '0', keyVar = 'p_key'): string {
  return `INSERT INTO ${s}.kv AS k (db, key, type, card, head, version)
        VALUES (p_db, ${keyVar}, ${type}, ${card}, ${head}, txid_current()) ${kOverMark};
      IF NOT FOUND THEN CONTINUE; END IF;`;
}

/**
 * Inside a LOOP, how a write that may create its key starts: lockKey (`onWrong` on another type),
 * then, for a missing key, its kv row with `card` elements (createKey) and `rows`: the family's
 * statements for a new key, ending with the function's RETURN. After it the key is live.
 */
export function lockOrCreate(s: string, type: number, card: string, rows: string, onWrong?: string): string {
  return `${lockKey(s, type, 'p_key', 'r', 'live', onWrong)}
         IF NOT live THEN
           ${createKey(s, type, card)}
           ${rows}
         END IF;`;
}

/**
 * dst (p_dst) := a new key of `type` holding n elements, whatever it held (a WATCH mark becomes
 * it); n = 0 deletes it and returns. The caller then inserts the n rows (S*STORE, Z*STORE).
 * existed (an OUT bool of the caller): dst held a key, for the `del` Redis fires on an empty result.
 */
export function replaceKey(s: string, type: number): string {
  return `LOOP
         DELETE FROM ${s}.kv WHERE db = p_db AND key = p_dst AND type <> ${kWatchMark};
         existed := coalesce(existed, false) OR FOUND;
         IF n = 0 THEN RETURN; END IF;
         INSERT INTO ${s}.kv AS k (db, key, type, card, head, version) VALUES (p_db, p_dst, ${type}, n, 0, txid_current())
           ${kOverMark};
         IF FOUND THEN EXIT; END IF;
       END LOOP;`;
}

/**
 * ON CONFLICT clause of an INSERT INTO kv AS k of a new collection key (type, card, head,
 * version given): it replaces a WATCH mark (transactions/functions.ts), any other row wins.
 */
export const kOverMark = `ON CONFLICT (db, key) DO UPDATE SET type = excluded.type, card = excluded.card, head = excluded.head,
        value = NULL, expires_at = NULL, version = excluded.version WHERE k.type = ${kWatchMark}`;

/** After removing `n` elements: the key goes when it is empty, else card and version change. */
export function shrinkKey(s: string, n: string, keyVar = 'p_key', r = 'r'): string {
  return `IF ${n} > 0 THEN
        IF ${r}.card - ${n} <= 0 THEN DELETE FROM ${s}.kv WHERE db = p_db AND key = ${keyVar};
        ELSE UPDATE ${s}.kv SET card = card - ${n}, version = txid_current() WHERE db = p_db AND key = ${keyVar}; END IF;
      END IF;`;
}

/**
 * lockKey for a write that answers a count (HDEL, LINSERT, ZREMRANGE…): a missing key answers
 * status 1, n 0. Needs `r record; live bool;` and OUT status, n.
 */
export function lockForCount(s: string, type: number): string {
  return `${lockKey(s, type)}
       status := 1; n := 0;
       IF NOT live THEN RETURN; END IF;`;
}

/** FNV-1a of the (quoted) schema name: a seed that differs between schemas */
function schemaSeed(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Locks keys a and b of db p_db for a move, without deadlock against another move of the same
 * pair either way round. Row locks in key order alone are not enough: a key missing when they are
 * taken is created later in the same transaction (or by another one meanwhile) and then locked
 * out of order — two BRPOPLPUSH waiting→active deadlocked that way whenever active had just been
 * emptied (bee-queue's two workers: 2 runs in 6). Transaction advisory locks on the keys' hashes,
 * in hash order, exist whether or not the rows do, so movers of a pair queue there first.
 */
export function pairLock(s: string, a: string, b: string): string {
  // Advisory locks are database-wide: seeded with the schema, so movers of the same key names on
  // another schema neither wait on these nor close a deadlock cycle with them. Unseeded, a test
  // file's SMOVE c b (its own transaction) deadlocked with another schema's batch transaction
  // holding the same hashes in the other order (40P01 reached the client in a fresh clone's full run).
  const h = (k: string) => `hash_record_extended(ROW(p_db, ${k}), ${schemaSeed(s)})`;
  return `PERFORM pg_advisory_xact_lock(least(${h(a)}, ${h(b)}));
         PERFORM pg_advisory_xact_lock(greatest(${h(a)}, ${h(b)}));
         PERFORM 1 FROM ${s}.kv WHERE db = p_db AND key IN (${a}, ${b}) ORDER BY key FOR NO KEY UPDATE;`;
}

/**
 * Inside a LOOP, the first thing a move (SMOVE, LMOVE) does: both kv rows locked in key order
 * (no deadlock with a move the other way round); a missing source answers status 0; the
 * destination is then d, live when dlive. Needs `r record; live bool; d record; dlive bool;`.
 */
export function lockPair(s: string, type: number): string {
  return `${pairLock(s, 'p_src', 'p_dst')}
         ${lockKey(s, type, 'p_src')}
         IF NOT live THEN status := 0; RETURN; END IF;
         ${lockKey(s, type, 'p_dst', 'd', 'dlive')}`;
}

/**
 * Redis's rank arithmetic for `a` … `b` over r.card elements (LTRIM, ZRANGE, ZREMRANGEBYRANK):
 * negative ranks count from the end, then clamp; `empty` runs when nothing is in range.
 */
export function rankRange(empty: string): string {
  return `IF a < 0 THEN a := r.card + a; END IF;
         IF b < 0 THEN b := r.card + b; END IF;
         IF a < 0 THEN a := 0; END IF;
         IF a > b OR a >= r.card THEN ${empty} END IF;
         IF b >= r.card THEN b := r.card - 1; END IF;`;
}

/**
 * HDEL / SREM / ZREM, `fn`(db, key, ids, now): n = the elements removed; the key goes when
 * emptied (gone: the keyspace event `del`).
 */
export function removeFunction(s: string, fn: string, t: CollectionTable): string {
  return `CREATE OR REPLACE FUNCTION ${s}.${fn}(p_db int2, p_key bytea, p_m bytea[], p_now int8, OUT status int2, OUT n int8,
       OUT gone bool)
     LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool;
     BEGIN
       ${lockForCount(s, t.type)}
       DELETE FROM ${s}.${t.table} WHERE db = p_db AND key = p_key AND ${t.id} = ANY (p_m);
       GET DIAGNOSTICS n = ROW_COUNT;
       ${shrinkKey(s, 'n')}
       gone := n > 0 AND r.card - n <= 0;
     END $f$`;
}

/**
 * LMPOP / ZMPOP, `fn`(db, keys, end, count, now): the first key (argument order) holding the
 * family's type pops through `pop`(db, key, count, end, now), whose columns after status are
 * `columns`; another type on the way is WRONGTYPE. Rows (status, key, columns…).
 */
export function mpopFunction(s: string, fn: string, type: number, end: string, pop: string, columns: [string, string][]): string {
  const nulls = columns.map(([c]) => `${c} := NULL; `).join('');
  return `CREATE OR REPLACE FUNCTION ${s}.${fn}(p_db int2, p_keys bytea[], ${end} bool, p_count int8, p_now int8)
     RETURNS TABLE (status int2, key bytea, ${columns.map(([c, ty]) => `${c} ${ty}`).join(', ')}) LANGUAGE plpgsql AS $f$
     #variable_conflict use_column
     DECLARE mk bytea; r record; live bool;
     BEGIN
       FOREACH mk IN ARRAY p_keys LOOP
         ${lockKey(s, type, 'mk', 'r', 'live', `status := 2; key := NULL; ${nulls}RETURN NEXT; RETURN;`)}
         IF live THEN
           RETURN QUERY SELECT p.status, mk, ${columns.map(([c]) => `p.${c}`).join(', ')} FROM ${s}.${pop}(p_db, mk, p_count, ${end}, p_now) p;
           RETURN;
         END IF;
       END LOOP;
     END $f$`;
}
