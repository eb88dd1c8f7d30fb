/**
 * List functions. Element i (0-based) of a list sits at position kv.head + i: pushes and pops
 * touch one end and change head/card; LINSERT and LREM shift the shorter side in one UPDATE
 * (the primary key is DEFERRABLE, so positions may collide inside that statement).
 * Status codes: collection/functions.ts; 3 = no such key, 4 = index out of range (LSET).
 * Functions that return elements are RETURNS TABLE: WRONGTYPE is one row with status 2.
 */
import { createKey, lockForCount, lockKey, lockPair, mpopFunction, pairLock, rankRange } from '../collection/functions';
import { blockingPopFunction } from '../blocking/functions';
import { live as liveRow } from '../kv-row';
import { kListTable } from './sql';

const kList = kListTable.type;

export function listFunctions(s: string): string[] {
  return [
    // LPUSH/RPUSH (p_xx false) and LPUSHX/RPUSHX (true): n = the new length (0 when X missed)
    `CREATE OR REPLACE FUNCTION ${s}.l_push(p_db int2, p_key bytea, p_v bytea[], p_left bool, p_xx bool, p_now int8,
       OUT status int2, OUT n int8) LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; c int8 := cardinality(p_v);
     BEGIN
       LOOP
         ${lockKey(s, kList)}
         status := 1;
         IF NOT live THEN
           n := 0;
           IF p_xx THEN RETURN; END IF;
           ${createKey(s, kList, 'c', 'CASE WHEN p_left THEN -c ELSE 0 END')}
           INSERT INTO ${s}.lists (db, key, pos, value)
             SELECT p_db, p_key, CASE WHEN p_left THEN -i ELSE i - 1 END, v FROM unnest(p_v) WITH ORDINALITY AS t(v, i);
           n := c; RETURN;
         END IF;
         INSERT INTO ${s}.lists (db, key, pos, value)
           SELECT p_db, p_key, CASE WHEN p_left THEN r.head - i ELSE r.head + r.card + i - 1 END, v
           FROM unnest(p_v) WITH ORDINALITY AS t(v, i);
         UPDATE ${s}.kv SET card = card + c, head = CASE WHEN p_left THEN head - c ELSE head END, version = txid_current()
           WHERE db = p_db AND key = p_key;
         n := r.card + c; RETURN;
       END LOOP;
     END $f$`,
    // LPOP/RPOP of a batch (list/pop-batch.ts): up to p_count elements from one end, each with its
    // offset from the low end of the popped range (off, a float8: the worker reads it as a number
    // without an int8's BigInt and string), in no particular order: the caller puts each in its place.
    // Unordered because ordering the DELETE … RETURNING meant a sort and a tuplestore of every
    // 1 KiB element: 1.9 → 1.0 µs of backend CPU per element popped (200-element pops, psql).
    // Both bounds of the range are given: the tail delete had none above, so its generic plan
    // walked every index entry past the tail (the dead ones of earlier RPOPs until VACUUM) or the
    // whole table: RPOP fell from 5k/s to under 300/s within 30k pops of a 100k list
    // (docs/BENCHMARKS.md "Draining"). gone: the pop took the last element (the keyspace event `del`)
    // A live list that keeps an element (the hot key's common case) takes one statement less: the
    // kv row's UPDATE locks it, checks it and moves head/card at once, and its RETURNING gives the
    // range's low end from the new head/card; the DELETE that follows has a snapshot taken after
    // the lock (READ COMMITTED, a VOLATILE function), so it sees what another lane committed to the
    // key meanwhile. Missing, expired, another type, a count of 0 or the last elements: the general
    // path below. Backend CPU per call of 10 elements: 160 → 140 µs; per element of a 140-element
    // batch 4.05 → 3.69 µs, within this machine's noise (docs/BENCHMARKS.md "Pops of a hot list").
    `CREATE OR REPLACE FUNCTION ${s}.l_pop_run(p_db int2, p_key bytea, p_count int8, p_left bool, p_now int8)
     RETURNS TABLE (status int2, off float8, value bytea, gone bool) LANGUAGE plpgsql AS $f$
     #variable_conflict use_column
     DECLARE r record; live bool; c int8; lo int8;
     BEGIN
       IF p_count > 0 THEN
         UPDATE ${s}.kv k SET card = k.card - p_count, head = CASE WHEN p_left THEN k.head + p_count ELSE k.head END,
             version = txid_current()
           WHERE k.db = p_db AND k.key = p_key AND k.type = ${kList} AND ${liveRow('k')} AND k.card > p_count
           RETURNING CASE WHEN p_left THEN k.head - p_count ELSE k.head + k.card END INTO lo;
         IF FOUND THEN
           RETURN QUERY DELETE FROM ${s}.lists l WHERE l.db = p_db AND l.key = p_key
             AND l.pos BETWEEN lo AND lo + p_count - 1 RETURNING 1::int2, (l.pos - lo)::float8, l.value, false;
           RETURN;
         END IF;
       END IF;
       ${lockKey(s, kList, 'p_key', 'r', 'live', 'status := 2; off := NULL; value := NULL; gone := NULL; RETURN NEXT; RETURN;')}
       IF NOT live THEN RETURN; END IF;
       IF p_count = 0 THEN status := 1; off := NULL; value := NULL; gone := false; RETURN NEXT; RETURN; END IF;
       c := least(p_count, r.card);
       lo := CASE WHEN p_left THEN r.head ELSE r.head + r.card - c END;
       IF c = r.card THEN
         -- the last elements: read them, and the key goes (its rows with it: trigger kv_deleted)
         RETURN QUERY SELECT 1::int2, (l.pos - lo)::float8, l.value, true FROM ${s}.lists l WHERE l.db = p_db AND l.key = p_key
           AND l.pos BETWEEN lo AND lo + c - 1;
         DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key;
         RETURN;
       END IF;
       RETURN QUERY DELETE FROM ${s}.lists l WHERE l.db = p_db AND l.key = p_key
         AND l.pos BETWEEN lo AND lo + c - 1 RETURNING 1::int2, (l.pos - lo)::float8, l.value, false;
       UPDATE ${s}.kv SET card = card - c, head = CASE WHEN p_left THEN head + c ELSE head END, version = txid_current()
         WHERE db = p_db AND key = p_key;
     END $f$`,
    // LPOP/RPOP for LMPOP and the blocking pops: l_pop_run's elements in pop order. PL/pgSQL, not
    // SQL: its plan stays cached in the session, where a SQL function is parsed and planned at every
    // call (as SQL, test/sql/pop-buffers.test.ts saw 13 → 55 pages per pop in a full run, 13 alone)
    `CREATE OR REPLACE FUNCTION ${s}.l_pop(p_db int2, p_key bytea, p_count int8, p_left bool, p_now int8)
     RETURNS TABLE (status int2, value bytea, gone bool) LANGUAGE plpgsql AS $f$
     #variable_conflict use_column
     BEGIN
       RETURN QUERY SELECT p.status, p.value, p.gone FROM ${s}.l_pop_run(p_db, p_key, p_count, p_left, p_now) p
         ORDER BY CASE WHEN p_left THEN p.off ELSE -p.off END;
     END $f$`,
    // LSET key index element
    `CREATE OR REPLACE FUNCTION ${s}.l_set(p_db int2, p_key bytea, p_index int8, p_v bytea, p_now int8, OUT status int2)
     LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; i int8;
     BEGIN
       ${lockKey(s, kList)}
       IF NOT live THEN status := 3; RETURN; END IF;
       IF p_index IS NULL THEN status := 5; RETURN; END IF;
       i := CASE WHEN p_index < 0 THEN r.card + p_index ELSE p_index END;
       IF i < 0 OR i >= r.card THEN status := 4; RETURN; END IF;
       UPDATE ${s}.lists SET value = p_v WHERE db = p_db AND key = p_key AND pos = r.head + i;
       UPDATE ${s}.kv SET version = txid_current() WHERE db = p_db AND key = p_key;
       status := 1;
     END $f$`,
    // LINSERT key BEFORE|AFTER pivot element: n = new length, -1 without the pivot, 0 without the key
    `CREATE OR REPLACE FUNCTION ${s}.l_insert(p_db int2, p_key bytea, p_after bool, p_pivot bytea, p_v bytea, p_now int8,
       OUT status int2, OUT n int8) LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; p int8; t int8;
     BEGIN
       ${lockForCount(s, kList)}
       SELECT pos INTO p FROM ${s}.lists WHERE db = p_db AND key = p_key AND value = p_pivot ORDER BY pos LIMIT 1;
       IF NOT FOUND THEN n := -1; RETURN; END IF;
       t := p - r.head + CASE WHEN p_after THEN 1 ELSE 0 END; -- index of the new element
       IF t < r.card - t THEN
         UPDATE ${s}.lists SET pos = pos - 1 WHERE db = p_db AND key = p_key AND pos < r.head + t;
         INSERT INTO ${s}.lists (db, key, pos, value) VALUES (p_db, p_key, r.head + t - 1, p_v);
         UPDATE ${s}.kv SET card = card + 1, head = head - 1, version = txid_current() WHERE db = p_db AND key = p_key;
       ELSE
         UPDATE ${s}.lists SET pos = pos + 1 WHERE db = p_db AND key = p_key AND pos >= r.head + t;
         INSERT INTO ${s}.lists (db, key, pos, value) VALUES (p_db, p_key, r.head + t, p_v);
         UPDATE ${s}.kv SET card = card + 1, version = txid_current() WHERE db = p_db AND key = p_key;
       END IF;
       n := r.card + 1;
     END $f$`,
    // LREM key count element: the matches go, then the shorter side closes the gaps; gone: the
    // last ones went
    `CREATE OR REPLACE FUNCTION ${s}.l_rem(p_db int2, p_key bytea, p_count int8, p_v bytea, p_now int8,
       OUT status int2, OUT n int8, OUT gone bool) LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; lo int8; hi int8;
     BEGIN
       ${lockForCount(s, kList)}
       WITH m AS (
         SELECT pos FROM ${s}.lists WHERE db = p_db AND key = p_key AND value = p_v
         ORDER BY CASE WHEN p_count >= 0 THEN pos END, pos DESC
         LIMIT CASE WHEN p_count <> 0 THEN abs(p_count) END),
       d AS (DELETE FROM ${s}.lists l USING m WHERE l.db = p_db AND l.key = p_key AND l.pos = m.pos RETURNING l.pos)
       SELECT count(*), min(pos), max(pos) INTO n, lo, hi FROM d;
       IF n = 0 THEN RETURN; END IF;
       gone := n = r.card;
       IF gone THEN DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key; RETURN; END IF;
       IF r.head + r.card - 1 - lo <= hi - r.head THEN
         UPDATE ${s}.lists l SET pos = q.np FROM (
           SELECT pos, lo + row_number() OVER (ORDER BY pos) - 1 AS np FROM ${s}.lists
           WHERE db = p_db AND key = p_key AND pos > lo) q
         WHERE l.db = p_db AND l.key = p_key AND l.pos = q.pos AND q.np <> l.pos;
         UPDATE ${s}.kv SET card = card - n, version = txid_current() WHERE db = p_db AND key = p_key;
       ELSE
         UPDATE ${s}.lists l SET pos = q.np FROM (
           SELECT pos, hi - row_number() OVER (ORDER BY pos DESC) + 1 AS np FROM ${s}.lists
           WHERE db = p_db AND key = p_key AND pos < hi) q
         WHERE l.db = p_db AND l.key = p_key AND l.pos = q.pos AND q.np <> l.pos;
         UPDATE ${s}.kv SET card = card - n, head = head + n, version = txid_current() WHERE db = p_db AND key = p_key;
       END IF;
     END $f$`,
    // LTRIM key start stop (Redis's index arithmetic); an empty result deletes the key.
    // ev: 0 the key was missing, 1 trimmed, 2 trimmed to nothing (keyspace events ltrim, del)
    `CREATE OR REPLACE FUNCTION ${s}.l_trim(p_db int2, p_key bytea, p_start int8, p_stop int8, p_now int8, OUT status int2,
       OUT ev int2)
     LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; a int8 := p_start; b int8 := p_stop; lt int8; rt int8;
     BEGIN
       ${lockKey(s, kList)}
       status := 1; ev := 0;
       IF NOT live THEN RETURN; END IF;
       ev := 2;
       ${rankRange(`DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key; RETURN;`)}
       ev := 1;
       lt := a; rt := r.card - b - 1;
       DELETE FROM ${s}.lists WHERE db = p_db AND key = p_key AND (pos < r.head + lt OR pos > r.head + r.card - 1 - rt);
       UPDATE ${s}.kv SET card = card - lt - rt, head = head + lt, version = txid_current() WHERE db = p_db AND key = p_key;
     END $f$`,
    // LMOVE / RPOPLPUSH: status 0 = source missing (nil), 1 = moved (value); both kv rows are
    // locked in key order first; gone: the source gave its last element
    `CREATE OR REPLACE FUNCTION ${s}.l_move(p_db int2, p_src bytea, p_dst bytea, p_from_left bool, p_to_left bool, p_now int8,
       OUT status int2, OUT value bytea, OUT gone bool) LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; d record; dlive bool; p int8;
     BEGIN
       LOOP
         ${lockPair(s, kList)}
         p := CASE WHEN p_from_left THEN r.head ELSE r.head + r.card - 1 END;
         SELECT l.value INTO value FROM ${s}.lists l WHERE l.db = p_db AND l.key = p_src AND l.pos = p;
         status := 1; gone := false;
         IF p_src = p_dst THEN
           IF p_from_left <> p_to_left THEN
             UPDATE ${s}.lists SET pos = CASE WHEN p_to_left THEN r.head - 1 ELSE r.head + r.card END
               WHERE db = p_db AND key = p_src AND pos = p;
             UPDATE ${s}.kv SET head = head + CASE WHEN p_to_left THEN -1 ELSE 1 END, version = txid_current()
               WHERE db = p_db AND key = p_src;
           ELSE
             UPDATE ${s}.kv SET version = txid_current() WHERE db = p_db AND key = p_src;
           END IF;
           RETURN;
         END IF;
         IF NOT dlive THEN
           ${createKey(s, kList, '1', '0', 'p_dst')}
           INSERT INTO ${s}.lists (db, key, pos, value) VALUES (p_db, p_dst, 0, value);
         ELSE
           INSERT INTO ${s}.lists (db, key, pos, value)
             VALUES (p_db, p_dst, CASE WHEN p_to_left THEN d.head - 1 ELSE d.head + d.card END, value);
           UPDATE ${s}.kv SET card = card + 1, head = head - CASE WHEN p_to_left THEN 1 ELSE 0 END, version = txid_current()
             WHERE db = p_db AND key = p_dst;
         END IF;
         gone := r.card = 1;
         IF gone THEN DELETE FROM ${s}.kv WHERE db = p_db AND key = p_src;
         ELSE
           DELETE FROM ${s}.lists WHERE db = p_db AND key = p_src AND pos = p;
           UPDATE ${s}.kv SET card = card - 1, head = head + CASE WHEN p_from_left THEN 1 ELSE 0 END, version = txid_current()
             WHERE db = p_db AND key = p_src;
         END IF;
         RETURN;
       END LOOP;
     END $f$`,
    // LMPOP: the first key (in argument order) holding a list gives up to p_count elements;
    // another type on the way is WRONGTYPE. Rows: (status, key, value).
    mpopFunction(s, 'l_mpop', kList, 'p_left', 'l_pop', [['value', 'bytea'], ['gone', 'bool']]),
    // BLPOP, BRPOP, BLMPOP: l_pop of the first non-empty key whose first waiter this is
    blockingPopFunction(s, { fn: 'b_lpop', type: kList, params: 'p_left bool, p_count int8',
      pop: `${s}.l_pop(p_db, mk, p_count, p_left, p_now)`, columns: [['value', 'bytea']] }),
    // BRPOPLPUSH, BLMOVE: l_move from the one source key, pushed in the same transaction; both
    // keys locked first as l_move locks them (pairLock: no deadlock with a move the other way)
    blockingPopFunction(s, { fn: 'b_lmove', type: kList, params: 'p_dst bytea, p_from_left bool, p_to_left bool',
      pop: `${s}.l_move(p_db, mk, p_dst, p_from_left, p_to_left, p_now)`, columns: [['value', 'bytea']],
      prelock: pairLock(s, 'mk', 'p_dst'),
      // the push made the destination (its one element; both keys still locked)
      created: `mk <> p_dst AND (SELECT d.card FROM ${s}.kv d WHERE d.db = p_db AND d.key = p_dst) = 1` }),
  ];
}
