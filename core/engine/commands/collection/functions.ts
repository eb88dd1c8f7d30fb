/**
 * PL/pgSQL pieces shared by the collection families (hashes, lists, sets, zsets), whose
 * functions.ts files build their functions from them. Each write command is one PL/pgSQL function: one round trip, exact when other lanes or instances write the same key
 * (the kv row is locked first), and one transaction.
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
