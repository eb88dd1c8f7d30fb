/**
 * Set functions (status codes: collection/functions.ts). Functions that return members are
 * RETURNS TABLE (status, member): WRONGTYPE is one row (2, NULL), no row = missing/empty.
 */
import { createKey, lockKey, lockOrCreate, lockPair, removeFunction, replaceKey, shrinkKey } from '../collection/functions';
import { live } from '../kv-row';
import { randomPickFunction } from '../collection/random-sql';
import { kSetRandom, kSetTable } from './sql';

const kSet = kSetTable.type;
const kWrongRow = 'status := 2; member := NULL; RETURN NEXT; RETURN;';

export function setFunctions(s: string): string[] {
  return [
    // SADD: members distinct. n = members added.
    `CREATE OR REPLACE FUNCTION ${s}.s_add(p_db int2, p_key bytea, p_m bytea[], p_now int8, OUT status int2, OUT n int8)
     LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool;
     BEGIN
       status := 1;
       LOOP
         ${lockOrCreate(s, kSet, 'cardinality(p_m)', `INSERT INTO ${s}.sets (db, key, member) SELECT p_db, p_key, m FROM unnest(p_m) AS t(m);
           n := cardinality(p_m); RETURN;`)}
         INSERT INTO ${s}.sets (db, key, member) SELECT p_db, p_key, m FROM unnest(p_m) AS t(m) ON CONFLICT DO NOTHING;
         GET DIAGNOSTICS n = ROW_COUNT;
         IF n > 0 THEN UPDATE ${s}.kv SET card = card + n, version = txid_current() WHERE db = p_db AND key = p_key; END IF;
         RETURN;
       END LOOP;
     END $f$`,
    // A run of SADDs to one key (sadd-batch.ts): the members (distinct) that were
    // not in the set, one row each; WRONGTYPE is one row (2, NULL).
    `CREATE OR REPLACE FUNCTION ${s}.s_add_new(p_db int2, p_key bytea, p_m bytea[], p_now int8)
     RETURNS TABLE (status int2, member bytea) LANGUAGE plpgsql AS $f$
     #variable_conflict use_column
     DECLARE r record; live bool; n int8;
     BEGIN
       LOOP
         ${lockOrCreate(s, kSet, 'cardinality(p_m)', `RETURN QUERY INSERT INTO ${s}.sets AS x (db, key, member) SELECT p_db, p_key, m FROM unnest(p_m) AS t(m)
             RETURNING 1::int2, x.member;
           RETURN;`, kWrongRow)}
         RETURN QUERY INSERT INTO ${s}.sets AS x (db, key, member) SELECT p_db, p_key, m FROM unnest(p_m) AS t(m)
           ON CONFLICT DO NOTHING RETURNING 1::int2, x.member;
         GET DIAGNOSTICS n = ROW_COUNT;
         IF n > 0 THEN UPDATE ${s}.kv SET card = card + n, version = txid_current() WHERE db = p_db AND key = p_key; END IF;
         RETURN;
       END LOOP;
     END $f$`,
    removeFunction(s, 's_rem', kSetTable),
    // SPOP: p_count members from a random h (p_r) on, wrapping; all of them when count ≥ card
    // (gone: the keyspace event `del`)
    `CREATE OR REPLACE FUNCTION ${s}.s_pop(p_db int2, p_key bytea, p_count int8, p_r int4, p_now int8)
     RETURNS TABLE (status int2, member bytea, gone bool) LANGUAGE plpgsql AS $f$
     #variable_conflict use_column
     DECLARE r record; live bool;
     BEGIN
       ${lockKey(s, kSet, 'p_key', 'r', 'live', 'status := 2; member := NULL; gone := NULL; RETURN NEXT; RETURN;')}
       IF NOT live OR p_count <= 0 THEN RETURN; END IF;
       IF p_count >= r.card THEN
         RETURN QUERY SELECT 1::int2, x.member, true FROM ${s}.sets x WHERE x.db = p_db AND x.key = p_key;
         DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key;
         RETURN;
       END IF;
       -- picked in the (key, h) index, deleted through the primary key: no join for the planner
       -- to turn into a scan of the whole set (docs/postgres.md "Plans")
       RETURN QUERY WITH d AS (DELETE FROM ${s}.sets x WHERE x.db = p_db AND x.key = p_key AND x.member = ANY (ARRAY(
           (SELECT y.member FROM ${s}.sets y WHERE y.db = p_db AND y.key = p_key AND y.h >= p_r ORDER BY y.h LIMIT p_count)
           UNION ALL
           (SELECT y.member FROM ${s}.sets y WHERE y.db = p_db AND y.key = p_key AND y.h < p_r ORDER BY y.h LIMIT p_count)
           LIMIT p_count)) RETURNING x.member)
         SELECT 1::int2, d.member, false FROM d;
       UPDATE ${s}.kv SET card = card - p_count, version = txid_current() WHERE db = p_db AND key = p_key;
     END $f$`,
    // SMOVE src dst member: status 0 = not moved, 1 = moved; gone: the source gave its last
    // member, added: the destination did not hold it (keyspace events del, sadd)
    `CREATE OR REPLACE FUNCTION ${s}.s_move(p_db int2, p_src bytea, p_dst bytea, p_m bytea, p_now int8, OUT status int2,
       OUT gone bool, OUT added bool)
     LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; d record; dlive bool;
     BEGIN
       LOOP
         ${lockPair(s, kSet)}
         IF p_src = p_dst THEN
           status := CASE WHEN EXISTS (SELECT 1 FROM ${s}.sets WHERE db = p_db AND key = p_src AND member = p_m) THEN 1 ELSE 0 END;
           RETURN;
         END IF;
         IF NOT dlive THEN
           -- create the destination first: a concurrent creator makes us decide again, before any change
           IF NOT EXISTS (SELECT 1 FROM ${s}.sets WHERE db = p_db AND key = p_src AND member = p_m) THEN status := 0; RETURN; END IF;
           ${createKey(s, kSet, '0', '0', 'p_dst')}
         END IF;
         DELETE FROM ${s}.sets WHERE db = p_db AND key = p_src AND member = p_m;
         IF NOT FOUND THEN status := 0; RETURN; END IF;
         ${shrinkKey(s, '1', 'p_src')}
         gone := r.card <= 1;
         INSERT INTO ${s}.sets (db, key, member) VALUES (p_db, p_dst, p_m) ON CONFLICT DO NOTHING;
         added := FOUND;
         -- dst already holding the member is unchanged: its version stays (a WATCH on it holds)
         IF FOUND THEN
           UPDATE ${s}.kv SET card = card + 1, version = txid_current() WHERE db = p_db AND key = p_dst;
         END IF;
         status := 1; RETURN;
       END LOOP;
     END $f$`,
    // SINTER (op 1) / SUNION (2) / SDIFF (3) over live keys; p_limit > 0 stops SINTERCARD early.
    // Intersection walks the smallest set and probes the others.
    `CREATE OR REPLACE FUNCTION ${s}.s_combine(p_db int2, p_op int2, p_keys bytea[], p_limit int8, p_now int8)
     RETURNS TABLE (status int2, member bytea) LANGUAGE plpgsql STABLE AS $f$
     #variable_conflict use_column
     DECLARE lk bytea[]; nwrong int8;
     BEGIN
       SELECT array_agg(k.key ORDER BY k.card, k.key), count(*) FILTER (WHERE k.type <> ${kSet}) INTO lk, nwrong
         FROM ${s}.kv k WHERE k.db = p_db AND k.key = ANY (p_keys) AND ${live('k')};
       IF nwrong > 0 THEN RETURN QUERY SELECT 2::int2, NULL::bytea; RETURN; END IF;
       lk := coalesce(lk, '{}');
       IF p_op = 1 THEN
         IF cardinality(lk) < (SELECT count(DISTINCT x) FROM unnest(p_keys) AS x) THEN RETURN; END IF;
         RETURN QUERY SELECT 1::int2, a.member FROM ${s}.sets a WHERE a.db = p_db AND a.key = lk[1]
           AND NOT EXISTS (SELECT 1 FROM unnest(lk[2:]) AS o(k) WHERE NOT EXISTS (
             SELECT 1 FROM ${s}.sets b WHERE b.db = p_db AND b.key = o.k AND b.member = a.member))
           LIMIT CASE WHEN p_limit > 0 THEN p_limit END;
       ELSIF p_op = 2 THEN
         RETURN QUERY SELECT DISTINCT 1::int2, a.member FROM ${s}.sets a WHERE a.db = p_db AND a.key = ANY (lk);
       ELSE
         IF NOT (p_keys[1] = ANY (lk)) THEN RETURN; END IF;
         RETURN QUERY SELECT 1::int2, a.member FROM ${s}.sets a WHERE a.db = p_db AND a.key = p_keys[1]
           AND NOT EXISTS (SELECT 1 FROM ${s}.sets b WHERE b.db = p_db AND b.key = ANY (p_keys[2:])
             AND b.key = ANY (lk) AND b.member = a.member);
       END IF;
     END $f$`,
    // S*STORE dst key…: the result replaces dst whatever its type; an empty result deletes it
    `CREATE OR REPLACE FUNCTION ${s}.s_store(p_db int2, p_dst bytea, p_op int2, p_keys bytea[], p_now int8,
       OUT status int2, OUT n int8, OUT existed bool) LANGUAGE plpgsql AS $f$
     DECLARE res bytea[]; wrong bool;
     BEGIN
       SELECT array_agg(c.member), bool_or(c.status = 2) INTO res, wrong FROM ${s}.s_combine(p_db, p_op, p_keys, 0, p_now) c;
       IF wrong THEN status := 2; RETURN; END IF;
       status := 1; n := coalesce(cardinality(res), 0);
       ${replaceKey(s, kSet)}
       INSERT INTO ${s}.sets (db, key, member) SELECT p_db, p_dst, m FROM unnest(res) AS t(m);
     END $f$`,
    // SRANDMEMBER: uniform picks (collection/random-sql.ts)
    randomPickFunction(s, kSetRandom),
  ];
}
