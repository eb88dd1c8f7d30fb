/**
 * Sorted-set functions. Order is (score, member), the zsets_score index. Score arithmetic goes
 * through f8add / f8mul (C's IEEE behaviour, ./functions-algebra.ts). Status codes:
 * collection/functions.ts; 3 = the result is NaN (ZADD INCR, ZINCRBY). Functions that return
 * members are RETURNS TABLE: WRONGTYPE is one row with status 2.
 *
 * Ranges (z_range, z_remrange) take every kind of bound; p_kind picks which apply:
 *   0 rank   p_start … p_stop (negative = from the end)
 *   1 score  p_lo ≤ score ≤ p_hi (exclusive bounds arrive as the next double: nextafter)
 *   2 lex    p_llo ≤ member < p_lhi, p_lhi NULL = no upper bound (exclusive lower bounds and
 *            inclusive upper ones arrive with a 0 byte appended: the next string)
 * then OFFSET p_off LIMIT p_lim (NULL = all) for BYSCORE / BYLEX.
 */
import { createKey, lockForCount, lockKey, mpopFunction, rankRange, removeFunction, replaceKey, shrinkKey } from '../collection/functions';
import { blockingPopFunction } from '../blocking/functions';
import { live } from '../kv-row';
import { algebraFunctions, scoreFunctions } from './functions-algebra';
import { randomPickFunction } from '../collection/random-sql';
import { everyScore, kZsetRandom, kZsetTable } from './sql';

const kZset = kZsetTable.type;
const kWrongRow = 'status := 2; member := NULL; score := NULL; RETURN NEXT; RETURN;';
const rangeArgs = 'p_kind int2, p_rev bool, p_start int8, p_stop int8, p_lo float8, p_hi float8, p_llo bytea, p_lhi bytea, p_off int8, p_lim int8';

export function zsetFunctions(s: string): string[] {
  return [
    ...scoreFunctions(s),
    // ZADD / ZINCRBY. p_flags: 1 NX, 2 XX, 4 GT, 8 LT, 32 INCR. Elements apply one after the
    // other, as in Redis (a repeated member is updated by its later pairs; CH counts each).
    // score: the last element's new score, NULL when it was not applied (INCR replies nil).
    `CREATE OR REPLACE FUNCTION ${s}.z_add(p_db int2, p_key bytea, p_m bytea[], p_sc float8[], p_flags int2, p_now int8,
       OUT status int2, OUT added int8, OUT changed int8, OUT score float8) LANGUAGE plpgsql AS $f$
     #variable_conflict use_variable
     DECLARE r record; live bool; i int; cur float8; sc float8; created bool := false;
       lo_s float8; lo_m bytea; hi_s float8; hi_m bytea; -- the smallest and largest (score, member) written
       nx bool := p_flags & 1 <> 0; xx bool := p_flags & 2 <> 0; gt bool := p_flags & 4 <> 0;
       lt bool := p_flags & 8 <> 0; incr bool := p_flags & 32 <> 0;
     BEGIN
       status := 1; added := 0; changed := 0;
       LOOP
         ${lockKey(s, kZset)}
         IF NOT live THEN
           IF xx THEN RETURN; END IF;
           ${createKey(s, kZset, '(SELECT count(DISTINCT m) FROM unnest(p_m) AS m)')}
           created := true;
         END IF;
         EXIT;
       END LOOP;
       -- Distinct members without INCR (GEOADD's 20,000 places, big ZADDs): one statement for all.
       -- Each pair is then independent of the others, so applying them together is the same as
       -- in order; the loop below cost ~22 µs a member (a probe and an insert each).
       IF NOT incr AND cardinality(p_m) > 1
           AND NOT EXISTS (SELECT 1 FROM unnest(p_m) AS m GROUP BY m HAVING count(*) > 1) THEN
         IF created THEN
           INSERT INTO ${s}.zsets (db, key, member, score) SELECT p_db, p_key, t.m, t.sc + 0 FROM unnest(p_m, p_sc) AS t(m, sc);
           added := cardinality(p_m);
           RETURN;
         END IF;
         WITH t AS (SELECT x.m, x.sc + 0 AS sc FROM unnest(p_m, p_sc) AS x(m, sc)),
           upd AS (UPDATE ${s}.zsets z SET score = t.sc FROM t WHERE NOT nx AND z.db = p_db AND z.key = p_key AND z.member = t.m
                     AND z.score <> t.sc AND NOT (lt AND t.sc >= z.score) AND NOT (gt AND t.sc <= z.score)
                   RETURNING z.member, z.score),
           ins AS (INSERT INTO ${s}.zsets AS z (db, key, member, score) SELECT p_db, p_key, t.m, t.sc FROM t WHERE NOT xx
                     AND NOT EXISTS (SELECT 1 FROM ${s}.zsets y WHERE y.db = p_db AND y.key = p_key AND y.member = t.m)
                   RETURNING z.member, z.score),
           w AS (SELECT upd.member, upd.score FROM upd UNION ALL SELECT ins.member, ins.score FROM ins)
         SELECT (SELECT count(*) FROM ins), (SELECT count(*) FROM upd), lo.score, lo.member, hi.score, hi.member
           INTO added, changed, lo_s, lo_m, hi_s, hi_m
           FROM (SELECT 1) AS one
           LEFT JOIN LATERAL (SELECT w.score, w.member FROM w ORDER BY w.score, w.member LIMIT 1) lo ON true
           LEFT JOIN LATERAL (SELECT w.score, w.member FROM w ORDER BY w.score DESC, w.member DESC LIMIT 1) hi ON true;
       ELSE
         FOR i IN 1 .. cardinality(p_m) LOOP
           sc := p_sc[i] + 0; score := NULL; -- + 0: -0 is stored as 0, as Redis's listpack encoding does
           SELECT z.score INTO cur FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key AND z.member = p_m[i];
           IF FOUND THEN
             IF nx THEN CONTINUE; END IF;
             IF incr THEN
               sc := ${s}.f8add(sc, cur);
               IF sc = 'NaN'::float8 THEN status := 3; RETURN; END IF;
             END IF;
             IF (lt AND sc >= cur) OR (gt AND sc <= cur) THEN CONTINUE; END IF;
             score := sc;
             IF sc = cur THEN CONTINUE; END IF;
             UPDATE ${s}.zsets z SET score = sc WHERE z.db = p_db AND z.key = p_key AND z.member = p_m[i];
             changed := changed + 1;
           ELSIF NOT xx THEN
             INSERT INTO ${s}.zsets (db, key, member, score) VALUES (p_db, p_key, p_m[i], sc);
             added := added + 1; score := sc;
           ELSE
             CONTINUE;
           END IF;
           IF lo_s IS NULL OR (sc, p_m[i]) < (lo_s, lo_m) THEN lo_s := sc; lo_m := p_m[i]; END IF;
           IF hi_s IS NULL OR (sc, p_m[i]) > (hi_s, hi_m) THEN hi_s := sc; hi_m := p_m[i]; END IF;
         END LOOP;
       END IF;
       IF NOT created AND added + changed > 0 THEN
         -- the pop bounds (z_pop) widen to what was written; NULL stays unbounded
         UPDATE ${s}.kv SET card = card + added, version = txid_current(),
             zlo_score = CASE WHEN (lo_s, lo_m) < (zlo_score, zlo_member) THEN lo_s ELSE zlo_score END,
             zlo_member = CASE WHEN (lo_s, lo_m) < (zlo_score, zlo_member) THEN lo_m ELSE zlo_member END,
             zhi_score = CASE WHEN (hi_s, hi_m) > (zhi_score, zhi_member) THEN hi_s ELSE zhi_score END,
             zhi_member = CASE WHEN (hi_s, hi_m) > (zhi_score, zhi_member) THEN hi_m ELSE zhi_member END
           WHERE db = p_db AND key = p_key;
       END IF;
     END $f$`,
    // A run of plain ZADDs on one key (./zadd-batch.ts): p_m distinct, each with the last score
    // the run gave it. olds: each member's score before the run (NULL = not a member), read under
    // the key's row lock, which a missing key gets by being created first (card 0; z_add counts
    // what it adds), so another lane cannot add members between the read and the write.
    `CREATE OR REPLACE FUNCTION ${s}.z_add_run(p_db int2, p_key bytea, p_m bytea[], p_sc float8[], p_now int8,
       OUT status int2, OUT olds float8[]) LANGUAGE plpgsql AS $f$
     #variable_conflict use_variable
     DECLARE r record; live bool;
     BEGIN
       LOOP
         ${lockKey(s, kZset)}
         IF NOT live THEN
           ${createKey(s, kZset, '0')}
         END IF;
         EXIT;
       END LOOP;
       -- one primary-key probe per member, whatever the statistics say (a join here was planned as a
       -- scan of the whole set per member while the table had none: 0.2-0.3 s per run at 86k members)
       olds := ARRAY(SELECT (SELECT z.score FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key AND z.member = t.m)
                       FROM unnest(p_m) WITH ORDINALITY AS t(m, i) ORDER BY t.i);
       SELECT a.status INTO status FROM ${s}.z_add(p_db, p_key, p_m, p_sc, 0::int2, p_now) AS a;
     END $f$`,
    removeFunction(s, 'z_rem', kZsetTable),
    // ZPOPMIN / ZPOPMAX (p_max): up to p_count, in pop order. The index scan starts at the pop
    // bound (kv.zlo / zhi, schema v5: no walk over the dead entries of earlier pops) and the
    // members are deleted through the primary key (no join the planner could turn into a scan
    // of the whole set); the last one popped is the new bound (docs/collections.md "Pops").
    // gone: the pop took the last member (the keyspace event `del`)
    `CREATE OR REPLACE FUNCTION ${s}.z_pop(p_db int2, p_key bytea, p_count int8, p_max bool, p_now int8)
     RETURNS TABLE (status int2, member bytea, score float8, gone bool) LANGUAGE plpgsql AS $f$
     #variable_conflict use_column
     DECLARE r record; live bool; n int8; ms bytea[]; scs float8[];
     BEGIN
       ${lockKey(s, kZset, 'p_key', 'r', 'live', 'status := 2; member := NULL; score := NULL; gone := NULL; RETURN NEXT; RETURN;', ', k.zlo_score, k.zlo_member, k.zhi_score, k.zhi_member')}
       IF NOT live OR p_count <= 0 THEN RETURN; END IF;
       IF p_max THEN
         WITH d AS (DELETE FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key AND z.member = ANY (ARRAY(
             SELECT x.member FROM ${s}.zsets x WHERE x.db = p_db AND x.key = p_key AND ${everyScore('x')}
               AND (x.score, x.member) <= (coalesce(r.zhi_score, 'NaN'), coalesce(r.zhi_member, '\\x'))
             ORDER BY x.score DESC, x.member DESC LIMIT p_count)) RETURNING z.member, z.score)
         SELECT array_agg(d.member ORDER BY d.score DESC, d.member DESC), array_agg(d.score ORDER BY d.score DESC, d.member DESC)
           INTO ms, scs FROM d;
       ELSE
         WITH d AS (DELETE FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key AND z.member = ANY (ARRAY(
             SELECT x.member FROM ${s}.zsets x WHERE x.db = p_db AND x.key = p_key AND ${everyScore('x')}
               AND (x.score, x.member) >= (coalesce(r.zlo_score, '-Infinity'), coalesce(r.zlo_member, '\\x'))
             ORDER BY x.score, x.member LIMIT p_count)) RETURNING z.member, z.score)
         SELECT array_agg(d.member ORDER BY d.score, d.member), array_agg(d.score ORDER BY d.score, d.member)
           INTO ms, scs FROM d;
       END IF;
       n := coalesce(cardinality(ms), 0);
       IF n = 0 THEN RETURN; END IF;
       RETURN QUERY SELECT 1::int2, t.m, t.sc, r.card <= n FROM unnest(ms, scs) AS t(m, sc);
       IF r.card <= n THEN DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key; RETURN; END IF;
       UPDATE ${s}.kv SET card = card - n, version = txid_current(),
           zlo_score = CASE WHEN p_max THEN zlo_score ELSE scs[n] END, zlo_member = CASE WHEN p_max THEN zlo_member ELSE ms[n] END,
           zhi_score = CASE WHEN p_max THEN scs[n] ELSE zhi_score END, zhi_member = CASE WHEN p_max THEN ms[n] ELSE zhi_member END
         WHERE db = p_db AND key = p_key;
     END $f$`,
    // ZMPOP: the first key (argument order) holding a sorted set pops; another type on the way
    // is WRONGTYPE. Rows (status, key, member, score).
    mpopFunction(s, 'z_mpop', kZset, 'p_max', 'z_pop', [['member', 'bytea'], ['score', 'float8'], ['gone', 'bool']]),
    // BZPOPMIN, BZPOPMAX, BZMPOP: z_pop of the first non-empty key whose first waiter this is
    blockingPopFunction(s, { fn: 'b_zpop', type: kZset, params: 'p_max bool, p_count int8',
      pop: `${s}.z_pop(p_db, mk, p_count, p_max, p_now)`, columns: [['member', 'bytea'], ['score', 'float8']] }),
    // A range (see the top of this file), in the order asked for; read-only
    `CREATE OR REPLACE FUNCTION ${s}.z_range(p_db int2, p_key bytea, ${rangeArgs}, p_now int8)
     RETURNS TABLE (status int2, member bytea, score float8) LANGUAGE plpgsql STABLE AS $f$
     #variable_conflict use_column
     DECLARE r record; a int8 := p_start; b int8 := p_stop;
     BEGIN
       SELECT k.type, k.card INTO r FROM ${s}.kv k
         WHERE k.db = p_db AND k.key = p_key AND ${live('k')};
       IF NOT FOUND THEN RETURN; END IF;
       IF r.type <> ${kZset} THEN RETURN QUERY SELECT 2::int2, NULL::bytea, NULL::float8; RETURN; END IF;
       RETURN QUERY SELECT 1::int2, NULL::bytea, NULL::float8; -- the key exists: ZRANGESTORE's empty result
       IF p_kind = 0 THEN
         ${rankRange('RETURN;')}
         p_off := a; p_lim := b - a + 1;
       END IF;
       IF p_off < 0 THEN RETURN; END IF;
       IF p_kind = 2 THEN
         IF p_rev THEN
           RETURN QUERY SELECT 1::int2, z.member, z.score FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key
             AND z.member >= p_llo AND (p_lhi IS NULL OR z.member < p_lhi) AND ${everyScore('z')}
             ORDER BY z.score DESC, z.member DESC OFFSET p_off LIMIT p_lim;
         ELSE
           RETURN QUERY SELECT 1::int2, z.member, z.score FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key
             AND z.member >= p_llo AND (p_lhi IS NULL OR z.member < p_lhi) AND ${everyScore('z')}
             ORDER BY z.score, z.member OFFSET p_off LIMIT p_lim;
         END IF;
       ELSIF p_kind = 1 THEN
         IF p_rev THEN
           RETURN QUERY SELECT 1::int2, z.member, z.score FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key
             AND z.score >= p_lo AND z.score <= p_hi ORDER BY z.score DESC, z.member DESC OFFSET p_off LIMIT p_lim;
         ELSE
           RETURN QUERY SELECT 1::int2, z.member, z.score FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key
             AND z.score >= p_lo AND z.score <= p_hi ORDER BY z.score, z.member OFFSET p_off LIMIT p_lim;
         END IF;
       ELSIF p_rev THEN
         RETURN QUERY SELECT 1::int2, z.member, z.score FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key
           AND ${everyScore('z')} ORDER BY z.score DESC, z.member DESC OFFSET p_off LIMIT p_lim;
       ELSE
         RETURN QUERY SELECT 1::int2, z.member, z.score FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key
           AND ${everyScore('z')} ORDER BY z.score, z.member OFFSET p_off LIMIT p_lim;
       END IF;
     END $f$`,
    // ZRANGESTORE dst src …: the range replaces dst (an empty one deletes it); n = its size
    `CREATE OR REPLACE FUNCTION ${s}.z_rangestore(p_db int2, p_dst bytea, p_src bytea, ${rangeArgs}, p_now int8,
       OUT status int2, OUT n int8, OUT existed bool) LANGUAGE plpgsql AS $f$
     DECLARE ms bytea[]; scs float8[]; wrong bool;
     BEGIN
       SELECT array_agg(x.member) FILTER (WHERE x.member IS NOT NULL), array_agg(x.score) FILTER (WHERE x.member IS NOT NULL),
           bool_or(x.status = 2)
         INTO ms, scs, wrong
         FROM ${s}.z_range(p_db, p_src, p_kind, p_rev, p_start, p_stop, p_lo, p_hi, p_llo, p_lhi, p_off, p_lim, p_now) x;
       IF wrong THEN status := 2; RETURN; END IF;
       SELECT * INTO status, n, existed FROM ${s}.z_replace(p_db, p_dst, ms, scs);
     END $f$`,
    // dst := the members and scores given (none: dst deleted); shared by the *STORE commands;
    // existed: dst held a key (the keyspace event `del` of an empty result)
    `CREATE OR REPLACE FUNCTION ${s}.z_replace(p_db int2, p_dst bytea, p_m bytea[], p_sc float8[], OUT status int2, OUT n int8,
       OUT existed bool)
     LANGUAGE plpgsql AS $f$
     BEGIN
       status := 1; n := coalesce(cardinality(p_m), 0);
       ${replaceKey(s, kZset)}
       INSERT INTO ${s}.zsets (db, key, member, score) SELECT p_db, p_dst, m, sc + 0 FROM unnest(p_m, p_sc) AS t(m, sc);
     END $f$`,
    // ZREMRANGEBYRANK / BYSCORE / BYLEX (bounds as for z_range, no offset); n removed; gone: the
    // key went with them
    `CREATE OR REPLACE FUNCTION ${s}.z_remrange(p_db int2, p_key bytea, p_kind int2, p_start int8, p_stop int8,
       p_lo float8, p_hi float8, p_llo bytea, p_lhi bytea, p_now int8, OUT status int2, OUT n int8, OUT gone bool)
     LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; a int8 := p_start; b int8 := p_stop;
     BEGIN
       ${lockForCount(s, kZset)}
       IF p_kind = 0 THEN
         ${rankRange('RETURN;')}
         DELETE FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key AND z.member = ANY (ARRAY(
           SELECT x.member FROM ${s}.zsets x WHERE x.db = p_db AND x.key = p_key AND ${everyScore('x')}
           ORDER BY x.score, x.member OFFSET a LIMIT b - a + 1));
       ELSIF p_kind = 1 THEN
         DELETE FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key AND z.score >= p_lo AND z.score <= p_hi;
       ELSE
         DELETE FROM ${s}.zsets z WHERE z.db = p_db AND z.key = p_key AND z.member >= p_llo AND (p_lhi IS NULL OR z.member < p_lhi);
       END IF;
       GET DIAGNOSTICS n = ROW_COUNT;
       ${shrinkKey(s, 'n')}
       gone := n > 0 AND r.card - n <= 0;
     END $f$`,
    ...algebraFunctions(s),
    // ZRANDMEMBER: uniform picks (collection/random-sql.ts)
    randomPickFunction(s, kZsetRandom),
  ];
}
