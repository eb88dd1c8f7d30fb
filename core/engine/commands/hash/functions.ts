/**
 * Hash write functions (status codes: collection/functions.ts; 3 = "hash value is not an
 * integer" / "not a float", 4 = overflow / NaN or Infinity, 5 = the increment is not a float,
 * 6 = the increment is NaN or Infinity).
 */
import { createKey, lockKey, lockOrCreate, removeFunction } from '../collection/functions';
import { addInt64 } from '../string/functions';
import { randomPickFunction } from '../collection/random-sql';
import { kHashRandom, kHashTable } from './sql';

const kHash = kHashTable.type;

export function hashFunctions(s: string): string[] {
  return [
    // HSET / HMSET (p_nx false) and HSETNX (true): fields are distinct (the command keeps the
    // last value of a repeated field). n = fields added.
    `CREATE OR REPLACE FUNCTION ${s}.h_set(p_db int2, p_key bytea, p_f bytea[], p_v bytea[], p_nx bool, p_now int8,
       OUT status int2, OUT n int8) LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool;
     BEGIN
       status := 1;
       LOOP
         ${lockOrCreate(s, kHash, 'cardinality(p_f)', `INSERT INTO ${s}.hashes (db, key, field, value) SELECT p_db, p_key, f, v FROM unnest(p_f, p_v) AS t(f, v);
           n := cardinality(p_f); RETURN;`)}
         IF p_nx THEN
           INSERT INTO ${s}.hashes (db, key, field, value) SELECT p_db, p_key, f, v FROM unnest(p_f, p_v) AS t(f, v)
             ON CONFLICT DO NOTHING;
           GET DIAGNOSTICS n = ROW_COUNT;
           IF n = 0 THEN RETURN; END IF;
         ELSE
           WITH u AS (
             INSERT INTO ${s}.hashes AS h (db, key, field, value) SELECT p_db, p_key, f, v FROM unnest(p_f, p_v) AS t(f, v)
             ON CONFLICT (db, key, field) DO UPDATE SET value = excluded.value RETURNING h.xmax = 0 AS added)
           SELECT count(*) FILTER (WHERE added) INTO n FROM u;
         END IF;
         UPDATE ${s}.kv SET card = card + n, version = txid_current() WHERE db = p_db AND key = p_key;
         RETURN;
       END LOOP;
     END $f$`,
    // A run of HSET / HMSET to one key (hset-batch.ts): fields distinct, the last
    // value of each; one row per field that was not in the hash, WRONGTYPE is one row (2, NULL).
    `CREATE OR REPLACE FUNCTION ${s}.h_set_new(p_db int2, p_key bytea, p_f bytea[], p_v bytea[], p_now int8)
     RETURNS TABLE (status int2, field bytea) LANGUAGE plpgsql AS $f$
     #variable_conflict use_column
     DECLARE r record; live bool; n int8;
     BEGIN
       LOOP
         ${lockOrCreate(s, kHash, 'cardinality(p_f)', `RETURN QUERY INSERT INTO ${s}.hashes AS h (db, key, field, value)
             SELECT p_db, p_key, f, v FROM unnest(p_f, p_v) AS t(f, v) RETURNING 1::int2, h.field;
           RETURN;`, 'status := 2; field := NULL; RETURN NEXT; RETURN;')}
         RETURN QUERY WITH u AS (
           INSERT INTO ${s}.hashes AS h (db, key, field, value) SELECT p_db, p_key, f, v FROM unnest(p_f, p_v) AS t(f, v)
           ON CONFLICT (db, key, field) DO UPDATE SET value = excluded.value RETURNING h.field AS f, h.xmax = 0 AS added)
           SELECT 1::int2, u.f FROM u WHERE u.added;
         GET DIAGNOSTICS n = ROW_COUNT;
         UPDATE ${s}.kv SET card = card + n, version = txid_current() WHERE db = p_db AND key = p_key;
         RETURN;
       END LOOP;
     END $f$`,
    removeFunction(s, 'h_del', kHashTable),
    // HINCRBY: the stored value must read as a 64-bit integer the way Redis's string2ll reads it
    `CREATE OR REPLACE FUNCTION ${s}.h_incrby(p_db int2, p_key bytea, p_f bytea, p_delta int8, p_now int8,
       OUT status int2, OUT result int8) LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; old bytea; t text; n numeric;
     BEGIN
       status := 1;
       LOOP
         ${lockOrCreate(s, kHash, '1', `INSERT INTO ${s}.hashes (db, key, field, value) VALUES (p_db, p_key, p_f, convert_to(p_delta::text, 'UTF8'));
           result := p_delta; RETURN;`)}
         SELECT value INTO old FROM ${s}.hashes WHERE db = p_db AND key = p_key AND field = p_f;
         IF NOT FOUND THEN
           INSERT INTO ${s}.hashes (db, key, field, value) VALUES (p_db, p_key, p_f, convert_to(p_delta::text, 'UTF8'));
           UPDATE ${s}.kv SET card = card + 1, version = txid_current() WHERE db = p_db AND key = p_key;
           result := p_delta; RETURN;
         END IF;
         ${addInt64('old')}
         UPDATE ${s}.hashes SET value = convert_to(result::text, 'UTF8') WHERE db = p_db AND key = p_key AND field = p_f;
         UPDATE ${s}.kv SET version = txid_current() WHERE db = p_db AND key = p_key;
         RETURN;
       END LOOP;
     END $f$`,
    // HINCRBYFLOAT: long double arithmetic as Redis does it, with INCRBYFLOAT's ld_* functions
    // (string/functions-float.ts); the increment is checked before the key, as in Redis
    `CREATE OR REPLACE FUNCTION ${s}.h_incrbyfloat(p_db int2, p_key bytea, p_f bytea, p_incr bytea, p_now int8,
       OUT status int2, OUT result text) LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; old bytea; a record; b record; c record;
     BEGIN
       SELECT * INTO b FROM ${s}.ld_parse(p_incr);
       IF NOT b.ok THEN status := 5; RETURN; END IF;
       IF b.inf THEN status := 6; RETURN; END IF;
       LOOP
         ${lockKey(s, kHash)}
         old := NULL;
         IF live THEN SELECT value INTO old FROM ${s}.hashes WHERE db = p_db AND key = p_key AND field = p_f; END IF;
         IF old IS NULL THEN
           SELECT true AS ok, false AS neg, 0::numeric AS m, 0 AS e, false AS inf INTO a;
         ELSE
           SELECT * INTO a FROM ${s}.ld_parse(old);
           IF NOT a.ok THEN status := 3; RETURN; END IF;
           IF a.inf THEN status := 4; RETURN; END IF;
         END IF;
         SELECT * INTO c FROM ${s}.ld_add(a.neg, a.m, a.e, b.neg, b.m, b.e);
         IF c.inf THEN status := 4; RETURN; END IF;
         status := 1; result := ${s}.ld_format(c.neg, c.m, c.e);
         IF NOT live THEN
           ${createKey(s, kHash, '1')}
           INSERT INTO ${s}.hashes (db, key, field, value) VALUES (p_db, p_key, p_f, convert_to(result, 'UTF8'));
           RETURN;
         END IF;
         IF old IS NULL THEN
           INSERT INTO ${s}.hashes (db, key, field, value) VALUES (p_db, p_key, p_f, convert_to(result, 'UTF8'));
         ELSE
           UPDATE ${s}.hashes SET value = convert_to(result, 'UTF8') WHERE db = p_db AND key = p_key AND field = p_f;
         END IF;
         UPDATE ${s}.kv SET card = card + (CASE WHEN old IS NULL THEN 1 ELSE 0 END), version = txid_current()
           WHERE db = p_db AND key = p_key;
         RETURN;
       END LOOP;
     END $f$`,
    // HRANDFIELD: uniform picks (collection/random-sql.ts)
    randomPickFunction(s, kHashRandom),
  ];
}
