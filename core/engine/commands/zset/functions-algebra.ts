/**
 * Sorted-set arithmetic and algebra: f8add / f8mul, IEEE double + and × as C does them (±inf on
 * overflow, 0 on underflow) where Postgres raises "value out of range" instead (ZADD INCR,
 * ZINCRBY, ZUNIONSTORE WEIGHTS); ZUNION / ZINTER / ZDIFF and their STORE forms, ZINTERCARD.
 * Sets take part with score 1. Status codes: collection/functions.ts.
 */
import { live } from '../kv-row';
import { kSetTable } from '../set/sql';
import { kZsetTable } from './sql';

const kZset = kZsetTable.type;
const kSet = kSetTable.type;

/** f8add / f8mul: installed before the SQL functions that call them (z_agg_step checks its body) */
export function scoreFunctions(s: string): string[] {
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

export function algebraFunctions(s: string): string[] {
  return [
    // one step of ZUNION/ZINTER's aggregation, as zunionInterAggregate does it: p_agg 1 SUM
    // (inf + -inf is 0), 2 MIN, 3 MAX; a NaN term (inf × 0 weight) is 0 when it starts a score
    // (ZUNION makes every NaN term 0 before it aggregates; ZINTER lets a later one through)
    `CREATE OR REPLACE FUNCTION ${s}.z_agg_step(acc float8, v float8, p_agg int2) RETURNS float8
     LANGUAGE sql IMMUTABLE AS $f$
       SELECT CASE
         WHEN acc IS NULL THEN CASE WHEN v = 'NaN'::float8 THEN 0 ELSE v END
         WHEN p_agg = 1 THEN (SELECT CASE WHEN x = 'NaN'::float8 THEN 0 ELSE x END FROM ${s}.f8add(acc, v) AS x)
         WHEN p_agg = 2 THEN CASE WHEN v < acc THEN v ELSE acc END
         ELSE CASE WHEN v > acc AND v <> 'NaN'::float8 THEN v ELSE acc END END $f$`,
    `CREATE OR REPLACE AGGREGATE ${s}.z_agg(float8, int2) (SFUNC = ${s}.z_agg_step, STYPE = float8)`,
    // ZUNION (p_op 2) / ZINTER (1) / ZDIFF (3) over sorted sets and sets (members score 1);
    // a key named twice counts twice. Terms aggregate in Redis's order: sources by size, then
    // position. p_op 0 only checks the types (an option error is reported after WRONGTYPE).
    `CREATE OR REPLACE FUNCTION ${s}.z_combine(p_db int2, p_op int2, p_keys bytea[], p_w float8[], p_agg int2, p_now int8)
     RETURNS TABLE (status int2, member bytea, score float8) LANGUAGE plpgsql STABLE AS $f$
     #variable_conflict use_column
     DECLARE nwrong int8; nmissing int8; nsrc int := cardinality(p_keys);
     BEGIN
       SELECT count(*) FILTER (WHERE k.type IS NOT NULL AND k.type NOT IN (${kSet}, ${kZset})), count(*) FILTER (WHERE k.type IS NULL)
         INTO nwrong, nmissing
         FROM unnest(p_keys) AS t(key) LEFT JOIN ${s}.kv k ON k.db = p_db AND k.key = t.key
           AND ${live('k')};
       IF nwrong > 0 THEN RETURN QUERY SELECT 2::int2, NULL::bytea, NULL::float8; RETURN; END IF;
       RETURN QUERY SELECT 1::int2, NULL::bytea, NULL::float8;
       IF p_op = 0 OR (p_op = 1 AND nmissing > 0) THEN RETURN; END IF;
       RETURN QUERY
         WITH src AS (
           SELECT t.i, t.key, k.type, row_number() OVER (ORDER BY coalesce(k.card, 0), t.i) AS ord
           FROM unnest(p_keys) WITH ORDINALITY AS t(key, i)
           JOIN ${s}.kv k ON k.db = p_db AND k.key = t.key AND ${live('k')}),
         terms AS (
           SELECT src.i, src.ord, z.member,
               CASE WHEN p_op = 3 THEN z.score ELSE ${s}.f8mul(z.score, coalesce(p_w[src.i], 1)) END AS v
             FROM src JOIN ${s}.zsets z ON z.db = p_db AND z.key = src.key WHERE src.type = ${kZset}
           UNION ALL
           SELECT src.i, src.ord, x.member, CASE WHEN p_op = 3 THEN 1 ELSE ${s}.f8mul(1, coalesce(p_w[src.i], 1)) END
             FROM src JOIN ${s}.sets x ON x.db = p_db AND x.key = src.key WHERE src.type = ${kSet}),
         agg AS (
           SELECT t.member,
             ${s}.z_agg(CASE WHEN p_op = 2 AND t.v = 'NaN'::float8 THEN 0 ELSE t.v END, p_agg ORDER BY t.ord) AS score,
             count(*) AS n, bool_or(t.i = 1) AS in_first
           FROM terms t GROUP BY t.member)
         SELECT 1::int2, agg.member, agg.score FROM agg
         WHERE CASE p_op WHEN 1 THEN agg.n = nsrc WHEN 2 THEN true ELSE agg.in_first AND agg.n = 1 END
         ORDER BY agg.score, agg.member;
     END $f$`,
    // Z*STORE dst: the combination replaces dst
    `CREATE OR REPLACE FUNCTION ${s}.z_store(p_db int2, p_dst bytea, p_op int2, p_keys bytea[], p_w float8[], p_agg int2,
       p_now int8, OUT status int2, OUT n int8, OUT existed bool) LANGUAGE plpgsql AS $f$
     DECLARE ms bytea[]; scs float8[]; wrong bool;
     BEGIN
       SELECT array_agg(x.member) FILTER (WHERE x.member IS NOT NULL), array_agg(x.score) FILTER (WHERE x.member IS NOT NULL),
           bool_or(x.status = 2)
         INTO ms, scs, wrong FROM ${s}.z_combine(p_db, p_op, p_keys, p_w, p_agg, p_now) x;
       IF wrong THEN status := 2; RETURN; END IF;
       SELECT * INTO status, n, existed FROM ${s}.z_replace(p_db, p_dst, ms, scs);
     END $f$`,
    // ZINTERCARD: members of the smallest source found in every other one (sets count as
    // sorted sets), counting stops at p_limit (0 = none). Types are checked first, as z_combine does.
    `CREATE OR REPLACE FUNCTION ${s}.z_intercard(p_db int2, p_keys bytea[], p_limit int8, p_now int8,
       OUT status int2, OUT n int8) LANGUAGE plpgsql STABLE AS $f$
     DECLARE nwrong int8; nmissing int8; ks bytea[]; ts int2[];
     BEGIN
       SELECT count(*) FILTER (WHERE k.type IS NOT NULL AND k.type NOT IN (${kSet}, ${kZset})), count(*) FILTER (WHERE k.type IS NULL),
           array_agg(t.key ORDER BY k.card, t.key) FILTER (WHERE k.type IS NOT NULL),
           array_agg(k.type ORDER BY k.card, t.key) FILTER (WHERE k.type IS NOT NULL)
         INTO nwrong, nmissing, ks, ts
         FROM (SELECT DISTINCT key FROM unnest(p_keys) AS u(key)) t LEFT JOIN ${s}.kv k ON k.db = p_db AND k.key = t.key
           AND ${live('k')};
       IF nwrong > 0 THEN status := 2; RETURN; END IF;
       status := 1; n := 0;
       IF nmissing > 0 THEN RETURN; END IF;
       SELECT count(*) INTO n FROM (
         SELECT 1 FROM (SELECT z.member FROM ${s}.zsets z WHERE ts[1] = ${kZset} AND z.db = p_db AND z.key = ks[1]
                        UNION ALL SELECT x.member FROM ${s}.sets x WHERE ts[1] = ${kSet} AND x.db = p_db AND x.key = ks[1]) a
         WHERE NOT EXISTS (SELECT 1 FROM unnest(ks[2:], ts[2:]) AS o(k, t) WHERE NOT CASE WHEN o.t = ${kZset}
             THEN EXISTS (SELECT 1 FROM ${s}.zsets z WHERE z.db = p_db AND z.key = o.k AND z.member = a.member)
             ELSE EXISTS (SELECT 1 FROM ${s}.sets x WHERE x.db = p_db AND x.key = o.k AND x.member = a.member) END)
         LIMIT CASE WHEN p_limit > 0 THEN p_limit END) q;
     END $f$`,
  ];
}
