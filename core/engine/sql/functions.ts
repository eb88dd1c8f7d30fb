/**
 * Server-side functions for the commands whose reply depends on the key's previous state (SET with
 * NX/XX/GET/KEEPTTL, INCRBY): one round trip, exact under concurrency from other lanes and other
 * PostRESP instances (row lock or ON CONFLICT), instead of read-then-write from the client.
 * Installed (CREATE OR REPLACE) by the primary at start, after the migrations.
 *
 * Versions: every write stamps kv.version with txid_current(), so a key deleted and created
 * again never shows an old version to WATCH (a counter restarting at 1 would).
 *
 * Status codes returned to the lane: 0 = not done (NX/XX failed), 1 = done, 2 = WRONGTYPE,
 * 3 = not an integer, 4 = overflow.
 */
import type pg from 'pg';
import { quoteIdent } from '../../primary/postgres/schema';
import { collectionFunctions } from '../commands/collection/functions';
import { floatFunctions } from './functions-float';
import { keyFunctions } from './functions-keys';
import { stringFunctions } from './functions-strings';
import { watchFunctions } from './functions-watch';

export function functionStatements(schema: string): string[] {
  const s = quoteIdent(schema);
  return [
    // SET key value [NX|XX] [GET] [EX…|KEEPTTL]: p_cond 0 none, 1 NX, 2 XX; p_exp NULL = no TTL
    `CREATE OR REPLACE FUNCTION ${s}.set_cond(p_db int2, p_key bytea, p_value bytea, p_exp int8,
       p_cond int2, p_keep bool, p_get bool, p_now int8, OUT status int2, OUT old bytea)
     LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool;
     BEGIN
       LOOP
         SELECT type, value, expires_at INTO r FROM ${s}.kv WHERE db = p_db AND key = p_key FOR UPDATE;
         live := FOUND AND (r.expires_at IS NULL OR r.expires_at > p_now);
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
         SELECT type, value, expires_at INTO r FROM ${s}.kv WHERE db = p_db AND key = p_key FOR UPDATE;
         IF FOUND AND (r.expires_at IS NULL OR r.expires_at > p_now) THEN
           IF r.type <> 0 THEN status := 2; RETURN; END IF;
           IF length(r.value) > 20 THEN status := 3; RETURN; END IF;
           t := encode(r.value, 'escape');
           IF t !~ '^(0|-?[1-9][0-9]*)$' THEN status := 3; RETURN; END IF;
           n := t::numeric;
           IF n > 9223372036854775807 OR n < -9223372036854775808 THEN status := 3; RETURN; END IF;
           n := n + p_delta;
           IF n > 9223372036854775807 OR n < -9223372036854775808 THEN status := 4; RETURN; END IF;
           result := n::int8;
           UPDATE ${s}.kv SET value = convert_to(result::text, 'UTF8'), version = txid_current()
             WHERE db = p_db AND key = p_key;
           status := 1; RETURN;
         END IF;
         IF FOUND THEN DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key; END IF;
         INSERT INTO ${s}.kv (db, key, type, value, expires_at, version)
           VALUES (p_db, p_key, 0, convert_to(p_delta::text, 'UTF8'), NULL, txid_current())
           ON CONFLICT (db, key) DO NOTHING;
         IF FOUND THEN status := 1; result := p_delta; RETURN; END IF;
       END LOOP;
     END $f$`,
    // A run of INCR/INCRBY/DECR/DECRBY from one lane batch, as one statement. Executed in (db, key)
    // order, stable for one key: increments of different keys commute and those of one key keep
    // their arrival order, so every reply equals serial execution; and every lane locks rows in
    // the same order, so two lanes' runs never deadlock (the SET run sorts for the same reason).
    `CREATE OR REPLACE FUNCTION ${s}.incr_many(p_dbs int2[], p_keys bytea[], p_deltas int8[], p_now int8)
     RETURNS TABLE (i int4, status int2, result int8) LANGUAGE plpgsql AS $f$
     DECLARE r record; o record;
     BEGIN
       FOR r IN SELECT t.db, t.key, t.delta, t.n FROM unnest(p_dbs, p_keys, p_deltas) WITH ORDINALITY AS t(db, key, delta, n)
                ORDER BY t.db, t.key, t.n LOOP
         SELECT * INTO o FROM ${s}.incr_by(r.db, r.key, r.delta, p_now);
         i := r.n; status := o.status; result := o.result;
         RETURN NEXT;
       END LOOP;
     END $f$`,
    // WATCH marks, EXEC's check, FLUSHALL that keeps marks (functions-watch.ts)
    ...watchFunctions(s),
    ...stringFunctions(s), ...floatFunctions(s), ...keyFunctions(s),
    // Collections (hashes, lists, sets, zsets): one block, the SQL beside its commands
    // (core/engine/commands/collection/functions.ts and each family's functions.ts).
    ...collectionFunctions(s),
  ];
}

/**
 * CREATE OR REPLACE cannot change a function's result type (42P13): a newer PostRESP whose
 * function returns other columns drops the old one first. Running instances of the old version
 * would then fail their calls: upgrade instances together.
 */
async function createOrReplace(client: pg.Client, sql: string): Promise<void> {
  await client.query('SAVEPOINT fn');
  try {
    await client.query(sql);
  } catch (e) {
    const m = /FUNCTION\s+("?[\w]+"?)\.(\w+)\s*\(/i.exec(sql);
    if ((e as { code?: string }).code !== '42P13' || m === null) throw e;
    await client.query('ROLLBACK TO SAVEPOINT fn');
    const drop = await client.query(
      `SELECT format('DROP FUNCTION %s', p.oid::regprocedure) AS stmt FROM pg_proc p
       JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = $2`,
      [m[1].replace(/"/g, ''), m[2]]);
    for (const r of drop.rows as { stmt: string }[]) await client.query(r.stmt);
    await client.query(sql);
  }
}

export async function installFunctions(client: pg.Client, schema: string): Promise<void> {
  await client.query('BEGIN');
  try {
    // two instances starting together must not replace the same function concurrently
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`postresp.functions:${schema}`]);
    for (const sql of functionStatements(schema)) await createOrReplace(client, sql);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
