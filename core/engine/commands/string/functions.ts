/**
 * Server-side functions of the string commands whose reply depends on the key's previous state:
 * SET with NX/XX/GET/KEEPTTL, INCRBY (alone and as the lane's INCR run), GETDEL GETEX MSETNX
 * APPEND SETRANGE GETRANGE, and INCRBYFLOAT (./functions-float.ts). One round trip each, exact
 * under concurrency from other lanes and other PostRESP instances: row lock (or ON CONFLICT),
 * then decide; an insert that loses a race with another session's insert decides again. An
 * expired row counts as missing and is deleted before a key is created in its place, so rows of
 * a collection it held go with it (trigger kv_deleted, schema v4).
 *
 * Versions: every write stamps kv.version with txid_current(), so a key deleted and created
 * again never shows an old version to WATCH (a counter restarting at 1 would).
 *
 * Status codes: 0 = missing / not done (NX/XX failed), 1 = done, 2 = WRONGTYPE, 3 = not an
 * integer, 4 = overflow, 5 = string exceeds proto-max-bulk-len.
 */
import { expired, live } from '../kv-row';
import { floatFunctions } from './functions-float';

/**
 * PL/pgSQL: `result` := the integer in bytea `value` plus p_delta, by Redis's rules (string2ll:
 * at most 20 bytes, no '+', no leading zeros, within int64): status 3 when `value` is no such
 * integer, 4 when the sum overflows (INCRBY, HINCRBY). Needs `t text; n numeric;` declared.
 */
export function addInt64(value: string): string {
  return `IF length(${value}) > 20 THEN status := 3; RETURN; END IF;
           t := encode(${value}, 'escape');
           IF t !~ '^(0|-?[1-9][0-9]*)$' THEN status := 3; RETURN; END IF;
           n := t::numeric;
           IF n > 9223372036854775807 OR n < -9223372036854775808 THEN status := 3; RETURN; END IF;
           n := n + p_delta;
           IF n > 9223372036854775807 OR n < -9223372036854775808 THEN status := 4; RETURN; END IF;
           result := n::int8;`;
}

/**
 * PL/pgSQL: locks the row at p_key into r and opens `IF <live> THEN`: another type answers 2, a
 * value that is no integer 3, else `result` := it plus p_delta (addInt64). The caller goes on
 * inside the IF, and its ELSE is the missing (or expired) key.
 */
function lockedInteger(s: string): string {
  return `SELECT type, value, expires_at INTO r FROM ${s}.kv WHERE db = p_db AND key = p_key FOR UPDATE;
         IF FOUND AND ${live('r')} THEN
           IF r.type <> 0 THEN status := 2; RETURN; END IF;
           ${addInt64('r.value')}`;
}

/** PL/pgSQL: the string at p_key into r (`cols`, type), `lock`ed: missing answers status 0, another type 2. */
function liveString(s: string, cols: string, lock: string): string {
  return `SELECT type, ${cols}, expires_at INTO r FROM ${s}.kv WHERE db = p_db AND key = p_key${lock};
       IF NOT FOUND OR NOT ${live('r')} THEN status := 0; RETURN; END IF;
       IF r.type <> 0 THEN status := 2; RETURN; END IF;`;
}

/**
 * PL/pgSQL inside a LOOP, once the key proved missing (FOUND: its row is there, expired): the
 * string `value`, without TTL, takes its place, then `done` sets the reply and the function
 * returns; another session creating the key meanwhile sends the LOOP round again.
 */
function createString(s: string, value: string, done: string): string {
  return `IF FOUND THEN DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key; END IF;
         INSERT INTO ${s}.kv (db, key, type, value, expires_at, version) VALUES (p_db, p_key, 0, ${value}, NULL, txid_current())
           ON CONFLICT (db, key) DO NOTHING;
         IF FOUND THEN status := 1; ${done} RETURN; END IF;`;
}

export function stringFunctions(s: string): string[] {
  return [
    // SET key value [NX|XX] [GET] [EX…|KEEPTTL]: p_cond 0 none, 1 NX, 2 XX; p_exp NULL = no TTL
    `CREATE OR REPLACE FUNCTION ${s}.set_cond(p_db int2, p_key bytea, p_value bytea, p_exp int8,
       p_cond int2, p_keep bool, p_get bool, p_now int8, OUT status int2, OUT old bytea)
     LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool;
     BEGIN
       LOOP
         SELECT type, value, expires_at INTO r FROM ${s}.kv WHERE db = p_db AND key = p_key FOR UPDATE;
         live := FOUND AND ${live('r')};
         IF live AND p_get AND r.type <> 0 THEN status := 2; RETURN; END IF;
         old := CASE WHEN live THEN r.value END;
         IF (p_cond = 1 AND live) OR (p_cond = 2 AND NOT live) THEN status := 0; RETURN; END IF;
         IF FOUND THEN
           UPDATE ${s}.kv SET type = 0, value = p_value, version = txid_current(),
             expires_at = CASE WHEN p_keep AND live THEN expires_at WHEN p_keep THEN NULL ELSE p_exp END
             WHERE db = p_db AND key = p_key;
           status := 1; RETURN;
         END IF;
         INSERT INTO ${s}.kv (db, key, type, value, expires_at, version)
           VALUES (p_db, p_key, 0, p_value, CASE WHEN p_keep THEN NULL ELSE p_exp END, txid_current())
           ON CONFLICT (db, key) DO NOTHING;
         IF FOUND THEN status := 1; RETURN; END IF;
         -- another session inserted the key between our SELECT and INSERT: decide again
       END LOOP;
     END $f$`,
    // INCRBY key delta: Redis's rules (string2ll: no '+', no leading zeros, within int64)
    `CREATE OR REPLACE FUNCTION ${s}.incr_by(p_db int2, p_key bytea, p_delta int8, p_now int8,
       OUT status int2, OUT result int8)
     LANGUAGE plpgsql AS $f$
     DECLARE r record; t text; n numeric;
     BEGIN
       LOOP
         ${lockedInteger(s)}
           UPDATE ${s}.kv SET value = convert_to(result::text, 'UTF8'), version = txid_current()
             WHERE db = p_db AND key = p_key;
           status := 1; RETURN;
         END IF;
         ${createString(s, "convert_to(p_delta::text, 'UTF8')", 'result := p_delta;')}
       END LOOP;
     END $f$`,
    // A run of INCR/INCRBY/DECR/DECRBY from one lane batch, as one statement. Executed in (db, key)
    // order, stable for one key: increments of different keys commute and those of one key keep
    // their arrival order, so every reply equals serial execution; and every lane locks rows in
    // the same order, so two lanes' runs never deadlock (the SET run sorts for the same reason).
    // Several ops on one key (redis-benchmark's INCR: every client on one key) update its row once:
    // an UPDATE per op made a new row version each, and each UPDATE walked the versions before
    // it (Postgres ~39 µs CPU per INCR with runs of ~200 on one key). After an op that left the
    // key an integer (status 1), the next ops of that key add in memory; the key's last value is
    // written when the run moves to another key or ends.
    `CREATE OR REPLACE FUNCTION ${s}.incr_many(p_dbs int2[], p_keys bytea[], p_deltas int8[], p_now int8)
     RETURNS TABLE (i int4, status int2, result int8) LANGUAGE plpgsql AS $f$
     DECLARE r record; o record; pdb int2; pkey bytea; known bool := false; v int8; dirty bool := false; n numeric;
     BEGIN
       FOR r IN SELECT t.db, t.key, t.delta, t.n FROM unnest(p_dbs, p_keys, p_deltas) WITH ORDINALITY AS t(db, key, delta, n)
                ORDER BY t.db, t.key, t.n LOOP
         IF known AND r.db = pdb AND r.key = pkey THEN
           i := r.n; n := v::numeric + r.delta;
           IF n > 9223372036854775807 OR n < -9223372036854775808 THEN
             status := 4; result := NULL;
           ELSE
             v := n::int8; dirty := true; status := 1; result := v;
           END IF;
           RETURN NEXT;
           CONTINUE;
         END IF;
         IF dirty THEN
           UPDATE ${s}.kv SET value = convert_to(v::text, 'UTF8'), version = txid_current() WHERE db = pdb AND key = pkey;
           dirty := false;
         END IF;
         SELECT * INTO o FROM ${s}.incr_by(r.db, r.key, r.delta, p_now);
         i := r.n; status := o.status; result := o.result;
         RETURN NEXT;
         pdb := r.db; pkey := r.key; known := o.status = 1; v := o.result;
       END LOOP;
       IF dirty THEN
         UPDATE ${s}.kv SET value = convert_to(v::text, 'UTF8'), version = txid_current() WHERE db = pdb AND key = pkey;
       END IF;
     END $f$`,
    // A run of INCR-family ops on ONE key (workers/storage/incr-run.ts; redis-benchmark's INCR:
    // every client on `counter:__rand_int__`): the key's integer before the run (`start`, 0 when
    // missing) and the run's last value written once; the lane deals each op its reply from
    // start and the deltas in order, as serial execution would (an op that would overflow answers
    // the error and changes nothing). incr_many returned a row per op from a PL/pgSQL loop:
    // ~2.4 µs of Postgres CPU per INCR with runs of ~180 ops on one key. p_monotone: no two
    // deltas of opposite signs, so no partial sum can overflow unless the total does.
    `CREATE OR REPLACE FUNCTION ${s}.incr_run(p_db int2, p_key bytea, p_deltas int8[], p_monotone bool, p_now int8,
       OUT status int2, OUT start int8)
     LANGUAGE plpgsql AS $f$
     DECLARE r record; t text; n numeric; v numeric; d int8; p_delta int8 := 0; result int8; wrote bool := false;
     BEGIN
       LOOP
         ${lockedInteger(s)}
           start := result;
         ELSE
           IF FOUND THEN DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key; END IF;
           INSERT INTO ${s}.kv (db, key, type, value, expires_at, version) VALUES (p_db, p_key, 0, convert_to('0', 'UTF8'), NULL, txid_current())
             ON CONFLICT (db, key) DO NOTHING;
           -- another session created it first: read it again, locked
           IF NOT FOUND THEN CONTINUE; END IF;
           start := 0;
         END IF;
         v := start;
         n := v + (SELECT sum(x) FROM unnest(p_deltas) AS x);
         IF p_monotone AND n BETWEEN -9223372036854775808 AND 9223372036854775807 THEN
           v := n; wrote := true;
         ELSE
           FOREACH d IN ARRAY p_deltas LOOP
             n := v + d;
             IF n BETWEEN -9223372036854775808 AND 9223372036854775807 THEN v := n; wrote := true; END IF;
           END LOOP;
         END IF;
         IF wrote THEN
           UPDATE ${s}.kv SET value = convert_to(v::text, 'UTF8'), version = txid_current() WHERE db = p_db AND key = p_key;
         END IF;
         status := 1; RETURN;
       END LOOP;
     END $f$`,
    // GETDEL key: the value, and the key is gone
    `CREATE OR REPLACE FUNCTION ${s}.getdel(p_db int2, p_key bytea, p_now int8, OUT status int2, OUT val bytea)
     LANGUAGE plpgsql AS $f$
     DECLARE r record;
     BEGIN
       ${liveString(s, 'value', ' FOR UPDATE')}
       DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key;
       status := 1; val := r.value;
     END $f$`,
    // GETEX key [EX…|PERSIST]: p_mode 0 = read only, 1 = expire at p_exp (past: delete), 2 = persist;
    // persisted: PERSIST cleared a TTL (the keyspace event `persist`)
    `CREATE OR REPLACE FUNCTION ${s}.getex(p_db int2, p_key bytea, p_mode int2, p_exp int8, p_now int8,
       OUT status int2, OUT val bytea, OUT persisted bool)
     LANGUAGE plpgsql AS $f$
     DECLARE r record;
     BEGIN
       ${liveString(s, 'value', ' FOR UPDATE')}
       status := 1; val := r.value;
       IF p_mode = 1 AND p_exp <= p_now THEN
         DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key;
       ELSIF p_mode = 1 THEN
         UPDATE ${s}.kv SET expires_at = p_exp, version = txid_current() WHERE db = p_db AND key = p_key;
       ELSIF p_mode = 2 AND r.expires_at IS NOT NULL THEN
         persisted := true;
         UPDATE ${s}.kv SET expires_at = NULL, version = txid_current() WHERE db = p_db AND key = p_key;
       END IF;
     END $f$`,
    // MSETNX: keys distinct and sorted by the caller (lock order). All or nothing: an insert
    // that finds a live key (or one inserted meanwhile) rolls back its subtransaction.
    `CREATE OR REPLACE FUNCTION ${s}.msetnx(p_db int2, p_keys bytea[], p_vals bytea[], p_now int8)
     RETURNS int4 LANGUAGE plpgsql AS $f$
     DECLARE n int;
     BEGIN
       PERFORM 1 FROM ${s}.kv WHERE db = p_db AND key = ANY (p_keys) AND ${live('kv')} LIMIT 1;
       IF FOUND THEN RETURN 0; END IF;
       DELETE FROM ${s}.kv WHERE db = p_db AND key = ANY (p_keys) AND ${expired('kv')};
       BEGIN
         INSERT INTO ${s}.kv (db, key, type, value, expires_at, version)
           SELECT p_db, k, 0, v, NULL, txid_current() FROM unnest(p_keys, p_vals) AS t(k, v)
           ON CONFLICT (db, key) DO NOTHING;
         GET DIAGNOSTICS n = ROW_COUNT;
         IF n < cardinality(p_keys) THEN RAISE EXCEPTION 'msetnx: a key exists'; END IF;
         RETURN 1;
       EXCEPTION WHEN raise_exception THEN
         RETURN 0;
       END;
     END $f$`,
    // APPEND key value: the new length; p_max = proto-max-bulk-len
    `CREATE OR REPLACE FUNCTION ${s}.append(p_db int2, p_key bytea, p_val bytea, p_max int8, p_now int8,
       OUT status int2, OUT len int8)
     LANGUAGE plpgsql AS $f$
     DECLARE r record;
     BEGIN
       LOOP
         SELECT type, length(value) AS n, expires_at INTO r FROM ${s}.kv WHERE db = p_db AND key = p_key FOR UPDATE;
         IF FOUND AND ${live('r')} THEN
           IF r.type <> 0 THEN status := 2; RETURN; END IF;
           IF r.n + length(p_val) > p_max THEN status := 5; RETURN; END IF;
           UPDATE ${s}.kv SET value = value || p_val, version = txid_current() WHERE db = p_db AND key = p_key;
           status := 1; len := r.n + length(p_val); RETURN;
         END IF;
         ${createString(s, 'p_val', 'len := length(p_val);')}
       END LOOP;
     END $f$`,
    // n zero bytes, by doubling (decode(repeat('00', n)) would build a text twice the size)
    `CREATE OR REPLACE FUNCTION ${s}.zero_bytes(n int8) RETURNS bytea LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE z bytea := '\\x00'::bytea;
     BEGIN
       IF n <= 0 THEN RETURN ''::bytea; END IF;
       WHILE length(z) < n LOOP z := z || z; END LOOP;
       RETURN substring(z FROM 1 FOR n::int4);
     END $f$`,
    // SETRANGE key offset value: Redis's order — empty value answers the length before the size check
    `CREATE OR REPLACE FUNCTION ${s}.setrange(p_db int2, p_key bytea, p_off int8, p_val bytea, p_max int8,
       p_now int8, OUT status int2, OUT len int8)
     LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; v bytea;
     BEGIN
       LOOP
         SELECT type, value, expires_at INTO r FROM ${s}.kv WHERE db = p_db AND key = p_key FOR UPDATE;
         live := FOUND AND ${live('r')};
         IF live AND r.type <> 0 THEN status := 2; RETURN; END IF;
         IF length(p_val) = 0 THEN status := 1; len := CASE WHEN live THEN length(r.value) ELSE 0 END; RETURN; END IF;
         IF p_off > p_max - length(p_val) THEN status := 5; RETURN; END IF; -- (no int8 overflow)
         v := CASE WHEN live THEN r.value ELSE ''::bytea END;
         IF length(v) < p_off + length(p_val) THEN v := v || ${s}.zero_bytes(p_off + length(p_val) - length(v)); END IF;
         v := overlay(v PLACING p_val FROM (p_off + 1)::int4 FOR length(p_val));
         IF live THEN
           UPDATE ${s}.kv SET value = v, version = txid_current() WHERE db = p_db AND key = p_key;
           status := 1; len := length(v); RETURN;
         END IF;
         ${createString(s, 'v', 'len := length(v);')}
       END LOOP;
     END $f$`,
    // GETRANGE key start end: Redis's index arithmetic (getrangeCommand), only the slice leaves
    `CREATE OR REPLACE FUNCTION ${s}.getrange(p_db int2, p_key bytea, p_start int8, p_end int8, p_now int8,
       OUT status int2, OUT val bytea)
     LANGUAGE plpgsql STABLE AS $f$
     DECLARE r record; b int8 := p_start; e int8 := p_end;
     BEGIN
       val := ''::bytea;
       ${liveString(s, 'length(value) AS n', '')}
       status := 1;
       IF b < 0 AND e < 0 AND b > e THEN RETURN; END IF;
       IF b < 0 THEN b := r.n + b; END IF;
       IF e < 0 THEN e := r.n + e; END IF;
       IF b < 0 THEN b := 0; END IF;
       IF e < 0 THEN e := 0; END IF;
       IF e >= r.n THEN e := r.n - 1; END IF;
       IF b > e OR r.n = 0 THEN RETURN; END IF;
       SELECT substring(value FROM (b + 1)::int4 FOR (e - b + 1)::int4) INTO val FROM ${s}.kv
         WHERE db = p_db AND key = p_key;
     END $f$`,
    ...floatFunctions(s),
  ];
}
