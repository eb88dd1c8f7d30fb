/**
 * DUMP's read and RESTORE's write, in Postgres. dump_rows: the key's type and its value or its
 * elements in their order (list positions, zset (score, member)). restore_key: the key replaced
 * (REPLACE) or refused when it exists, then created with its rows in one function: one round
 * trip, the kv row locked first as every family's write does.
 *
 * restore_key statuses: 1 restored, 3 the key exists (BUSYKEY), 4 a TTL already past deleted an
 * existing key (REPLACE), 5 a TTL already past and no key: nothing done.
 */
import { kWatchMark, live } from '../kv-row';

export function dumpFunctions(s: string): string[] {
  return [
    `CREATE OR REPLACE FUNCTION ${s}.dump_rows(p_db int2, p_key bytea, p_now int8)
     RETURNS TABLE (type int2, a bytea, b bytea, sc float8) LANGUAGE plpgsql STABLE AS $f$
     #variable_conflict use_column
     DECLARE r record;
     BEGIN
       SELECT k.type, k.value INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key AND ${live('k')};
       IF NOT FOUND THEN RETURN; END IF;
       CASE r.type
         WHEN 0 THEN RETURN QUERY SELECT 0::int2, r.value, NULL::bytea, NULL::float8;
         WHEN 1 THEN RETURN QUERY SELECT 1::int2, h.field, h.value, NULL::float8 FROM ${s}.hashes h
           WHERE h.db = p_db AND h.key = p_key;
         WHEN 2 THEN RETURN QUERY SELECT 2::int2, l.value, NULL::bytea, NULL::float8 FROM ${s}.lists l
           WHERE l.db = p_db AND l.key = p_key ORDER BY l.pos;
         WHEN 3 THEN RETURN QUERY SELECT 3::int2, m.member, NULL::bytea, NULL::float8 FROM ${s}.sets m
           WHERE m.db = p_db AND m.key = p_key;
         WHEN 4 THEN RETURN QUERY SELECT 4::int2, z.member, NULL::bytea, z.score FROM ${s}.zsets z
           WHERE z.db = p_db AND z.key = p_key ORDER BY z.score, z.member;
         -- a stream: its type alone (DUMP refuses it; nil would say the key does not exist)
         ELSE RETURN QUERY SELECT r.type, NULL::bytea, NULL::bytea, NULL::float8;
       END CASE;
     END $f$`,
    // p_a: the list's items, set members, hash fields or zset members; p_b hash values; p_sc scores
    `CREATE OR REPLACE FUNCTION ${s}.restore_key(p_db int2, p_key bytea, p_type int2, p_value bytea, p_a bytea[],
       p_b bytea[], p_sc float8[], p_replace bool, p_exp int8, p_now int8, OUT status int2) LANGUAGE plpgsql AS $f$
     DECLARE r record; deleted bool := false;
     BEGIN
       LOOP
         SELECT k.type, k.expires_at INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key FOR UPDATE;
         IF FOUND AND ${live('r')} THEN
           IF NOT p_replace THEN status := 3; RETURN; END IF;
           DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key;
           deleted := true;
         ELSIF FOUND AND r.type <> ${kWatchMark} THEN
           DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key;
         END IF;
         IF p_exp IS NOT NULL AND p_exp <= p_now THEN status := CASE WHEN deleted THEN 4 ELSE 5 END; RETURN; END IF;
         INSERT INTO ${s}.kv AS k (db, key, type, value, expires_at, card, head, version)
           VALUES (p_db, p_key, p_type, CASE WHEN p_type = 0 THEN p_value END, p_exp,
                   CASE WHEN p_type <> 0 THEN cardinality(p_a) END, CASE WHEN p_type <> 0 THEN 0 END, txid_current())
           ON CONFLICT (db, key) DO UPDATE SET type = excluded.type, value = excluded.value, expires_at = excluded.expires_at,
             card = excluded.card, head = excluded.head, version = excluded.version WHERE k.type = ${kWatchMark};
         IF FOUND THEN EXIT; END IF;
       END LOOP;
       CASE p_type
         WHEN 1 THEN INSERT INTO ${s}.hashes (db, key, field, value) SELECT p_db, p_key, t.f, t.v FROM unnest(p_a, p_b) AS t(f, v);
         WHEN 2 THEN INSERT INTO ${s}.lists (db, key, pos, value) SELECT p_db, p_key, t.i - 1, t.v
           FROM unnest(p_a) WITH ORDINALITY AS t(v, i);
         WHEN 3 THEN INSERT INTO ${s}.sets (db, key, member) SELECT p_db, p_key, t.m FROM unnest(p_a) AS t(m);
         WHEN 4 THEN INSERT INTO ${s}.zsets (db, key, member, score) SELECT p_db, p_key, t.m, t.sc + 0 FROM unnest(p_a, p_sc) AS t(m, sc);
         ELSE NULL;
       END CASE;
       status := 1;
     END $f$`,
  ];
}
