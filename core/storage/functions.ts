/**
 * Server-side functions for the commands whose reply depends on the key's previous state (SET with
 * NX/XX/GET/KEEPTTL, INCRBY): one round trip, exact under concurrency from other lanes and other
 * PostRESP instances (row lock or ON CONFLICT), instead of read-then-write from the client.
 * Installed (CREATE OR REPLACE) by the primary at start, after the migrations.
 *
 * Status codes returned to the lane: 0 = not done (NX/XX failed), 1 = done, 2 = WRONGTYPE,
 * 3 = not an integer, 4 = overflow.
 */
import type pg from 'pg';
import { quoteIdent } from '../postgres/schema';

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
           UPDATE ${s}.kv SET type = 0, value = p_value, version = version + 1,
             expires_at = CASE WHEN p_keep AND live THEN expires_at WHEN p_keep THEN NULL ELSE p_exp END
             WHERE db = p_db AND key = p_key;
           status := 1; RETURN;
         END IF;
         INSERT INTO ${s}.kv (db, key, type, value, expires_at)
           VALUES (p_db, p_key, 0, p_value, CASE WHEN p_keep THEN NULL ELSE p_exp END)
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
           UPDATE ${s}.kv SET value = convert_to(result::text, 'UTF8'), version = version + 1
             WHERE db = p_db AND key = p_key;
           status := 1; RETURN;
         END IF;
         IF FOUND THEN DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key; END IF;
         INSERT INTO ${s}.kv (db, key, type, value, expires_at)
           VALUES (p_db, p_key, 0, convert_to(p_delta::text, 'UTF8'), NULL)
           ON CONFLICT (db, key) DO NOTHING;
         IF FOUND THEN status := 1; result := p_delta; RETURN; END IF;
       END LOOP;
     END $f$`,
  ];
}

export async function installFunctions(client: pg.Client, schema: string): Promise<void> {
  await client.query('BEGIN');
  try {
    // two instances starting together must not replace the same function concurrently
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`postresp.functions:${schema}`]);
    for (const sql of functionStatements(schema)) await client.query(sql);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
