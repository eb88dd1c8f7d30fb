/**
 * Server-side SQL shared by the collection families (hashes, lists, sets, zsets), and the list
 * of every family's functions, installed by core/engine/sql/functions.ts. Each write command is one
 * PL/pgSQL function: one round trip, exact when other lanes or instances write the same key
 * (the kv row is locked first), and one transaction.
 *
 *   lock the kv row ─▶ expired? delete it (rows cascade) ─▶ other type? status 2 (WRONGTYPE)
 *        │ missing and the command creates: INSERT kv … ON CONFLICT (over a WATCH mark), else decide again
 *        ▼
 *   change the family's rows ─▶ kv.card / head / version updated, or the kv row deleted when
 *                               the collection became empty
 *
 * Status codes every function returns first: 0 = nothing done / missing, 1 = done, 2 = WRONGTYPE,
 * then family-specific codes (documented beside each function).
 */
import { kWatchMark } from '../../sql/functions-watch';
import { hashFunctions } from '../hash/functions';
import { listFunctions } from '../list/functions';
import { setFunctions } from '../set/functions';
import { zsetFunctions } from '../zset/functions';

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
      ELSIF ${r}.expires_at IS NOT NULL AND ${r}.expires_at <= p_now THEN
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
 * version given): it replaces a WATCH mark (core/engine/sql/functions-watch.ts), any other row wins.
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
 * Shared SQL functions: f8add / f8mul, IEEE double + and × as C does them (±inf on overflow, 0
 * on underflow) where Postgres raises "value out of range" instead (ZINCRBY, ZUNIONSTORE
 * WEIGHTS). HINCRBYFLOAT uses INCRBYFLOAT's long double functions (core/engine/sql/functions-float.ts).
 */
export function sharedFunctions(s: string): string[] {
  return [
    // a + b in IEEE doubles: operands below 2^1022 cannot overflow; otherwise halve both
    // (exact for such magnitudes), add, and double back unless that overflows
    `CREATE OR REPLACE FUNCTION ${s}.f8add(a float8, b float8) RETURNS float8
     LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
       SELECT CASE
         WHEN a = 'NaN' OR b = 'NaN' OR a IN ('Infinity', '-Infinity') OR b IN ('Infinity', '-Infinity') THEN a + b
         WHEN abs(a) < '0x1p1022'::float8 AND abs(b) < '0x1p1022'::float8 THEN a + b
         WHEN abs(a / 2 + b / 2) >= '0x1p1023'::float8 THEN sign(a / 2 + b / 2) * 'Infinity'::float8
         ELSE (a / 2 + b / 2) * 2 END $f$`,
    // a × b in IEEE doubles: in range, one multiplication; else scaled by 2^±600 (exact) so
    // Postgres never sees an overflow or underflow, then ±inf / the (sub)normal / 0
    `CREATE OR REPLACE FUNCTION ${s}.f8mul(a float8, b float8) RETURNS float8
     LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$
     DECLARE l float8; big float8; small float8; p float8;
       up constant float8 := '0x1p600'; down constant float8 := '0x1p-600';
     BEGIN
       IF a = 0 OR b = 0 OR a = 'NaN' OR b = 'NaN' OR a IN ('Infinity', '-Infinity') OR b IN ('Infinity', '-Infinity') THEN
         RETURN a * b;
       END IF;
       l := ln(abs(a)) + ln(abs(b));
       IF abs(l) < 690 THEN RETURN a * b; END IF;
       IF abs(a) >= abs(b) THEN big := a; small := b; ELSE big := b; small := a; END IF;
       IF l > 0 THEN
         p := (big * down) * small;
         -- p · 2^600 overflows exactly when p ≥ 2^424 (the double after DBL_MAX / 2^600)
         IF abs(p) >= '0x1p424'::float8 THEN RETURN sign(p) * 'Infinity'::float8; END IF;
         RETURN p * up;
       END IF;
       p := big * (small * up);
       -- at most half the smallest subnormal (2^-1075) rounds to 0, ties to even
       IF abs(p) <= '0x1p-475'::float8 THEN RETURN sign(p) * 0::float8; END IF;
       RETURN p * down;
     END $f$`,
  ];
}

/** Every collection function, shared ones first: appended to core/engine/sql/functions.ts's list. */
export function collectionFunctions(s: string): string[] {
  return [...sharedFunctions(s), ...hashFunctions(s), ...setFunctions(s), ...listFunctions(s), ...zsetFunctions(s)];
}
