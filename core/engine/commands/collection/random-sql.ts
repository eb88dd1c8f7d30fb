/**
 * Uniform random picks (SRANDMEMBER, HRANDFIELD, ZRANDMEMBER): one PL/pgSQL function and one
 * statement per family, generated here from the table and column names.
 *
 * Every element row carries h, a random int in [0, 2^31) indexed with its key (migrations 2/4).
 * Taking "the element after a random h" picks each element with a chance equal to the gap before
 * its h: over 10 elements those gaps differ by 10× and more, and the Redis suite's chi-square
 * (df 9, must stay < 40) measured 600–1250. Two exact methods instead, chosen by cost:
 *
 *   whole     read every element of the key once (the primary key's index), then pick by rank:
 *             O(n + picks). Used when n ≤ kWholePerPick × picks, so it is O(picks) there.
 *   windowed  a trial draws x uniformly in [-w, 2^31) and j uniformly in [0, M); it counts the
 *             elements with h in [x, x + w) (at most M + 1 read) and, when j < count ≤ M, picks
 *             the j-th of them. An element lies in the window for exactly w of the 2^31 + w
 *             values of x whatever its neighbours, and is then the j-th with chance 1/M, so
 *             every trial picks each element with the same chance w / ((2^31 + w)·M): accepted
 *             picks are independent and uniform. With w = λ·2^31 / n a window holds about
 *             λ = 16 elements, so 1 trial in M/λ = 4 is accepted; a trial is one range read of
 *             the (key, h) index (~λ entries, index-only), and an accepted one a probe for its
 *             row: O(picks · (log n + λ)), whatever n.
 *
 * The windowed method is exact only if no window holds more than M elements. For h values
 * drawn independently (every write path, and every removal but SPOP, leaves the h of a key's
 * elements independent and uniform) that fails with probability ≤ n · P(Poisson(16) ≥ 64)
 * ≈ n · 1.4e-19 (1.4e-10 for a billion elements). A trial that meets a denser window says so and
 * the call answers with the whole method instead, exactly; calls that do not meet it pick that
 * window's elements less often than the rest. SPOP takes the element after a random h, which
 * favours elements after wide gaps and leaves the survivors clustered (simulated: 100 000
 * members popped down to 1 000, densest window 161 for λ = 16), so SRANDMEMBER on a set that
 * SPOP has drained far is uniform only up to that. A call that needs more than kMaxRounds
 * batches of trials (kv.card larger than the rows: never expected, but it must not loop
 * forever) also answers with the whole method; that depends only on how many trials were
 * accepted, not on which elements, so it does not bias the picks.
 *
 * Positive counts (distinct picks): count ≥ n returns every element (Redis: O(n) too); when
 * count is large for n, the whole method keeps `count` elements ordered by random() (a uniform
 * subset, O(n log count)); else windowed picks with repeats skipped, as Redis's case 4 does.
 */
import type { Statement } from '../../key-store';
import { liveKey, type CollectionTable } from './sql';

/**
 * whole when n ≤ this × picks. Measured (pgbench on the functions, 2 shared cores): a windowed
 * pick ~60–150 µs, the whole method ~0.1–0.3 µs per element plus ~0.2 µs per pick: equal cost
 * near 500 per pick. 256 bounds the array the whole method holds to 256 × the reply's members,
 * for at most ~2× the CPU of the cheaper method near the boundary.
 */
const kWholePerPick = 256;
/** λ: elements expected in a window */
const kLambda = 16;
/** M: positions a trial draws from; P(a window holds > M) above */
const kM = 64;
/** trial batches before falling back to the whole method; P(a batch falls short) < 0.3 */
const kMaxRounds = 8;
/** h values are in [0, 2^31) */
const kSpan = 2147483648;

/** A family's element table and the name of its pick function, e.g. s_rand */
export interface RandomFamily extends CollectionTable {
  fn: string;
}

/**
 * `fn(db, key, card, count)`: the identities picked, in pick order. count < 0: -count picks with
 * repetitions; count > 0: up to count distinct ones. STABLE: every query inside reads the calling
 * statement's snapshot, so the statement's join for values sees the same rows (random() is
 * volatile, which STABLE allows: it only promises not to write). force_generic_plan: the trial
 * query's custom plans never looked cheaper than its generic one, so each call planned it again
 * (~0.8 ms here); the generic plan is made once per connection.
 */
export function randomPickFunction(s: string, f: RandomFamily): string {
  const rows = `x.db = p_db AND x.key = p_key`;
  return `CREATE OR REPLACE FUNCTION ${s}.${f.fn}(p_db int2, p_key bytea, p_card int8, p_count int8)
     RETURNS TABLE (el bytea) LANGUAGE plpgsql STABLE ROWS 10 SET plan_cache_mode = force_generic_plan AS $f$
     #variable_conflict use_column
     DECLARE want int8 := abs(p_count); w int8; batch bytea[]; overflow bool; picked bytea[] := '{}'; rounds int := 0;
       els bytea[]; n int4; i int8 := 0;
     BEGIN
       IF p_count = 0 OR coalesce(p_card, 0) <= 0 THEN RETURN; END IF;
       IF p_count > 0 AND want >= p_card THEN
         RETURN QUERY SELECT x.${f.id} FROM ${s}.${f.table} x WHERE ${rows} LIMIT want;
         RETURN;
       END IF;
       IF p_card > ${kWholePerPick} * want THEN
         w := ceil(${kLambda} * ${kSpan}::float8 / p_card)::int8;
         WHILE rounds < ${kMaxRounds} LOOP
           rounds := rounds + 1;
           -- 1.2× the trials expected for the picks still missing, + 3 (one pick: P(short) ≈ 6%).
           -- hs: the window's h values in order (an index-only scan); the pick is the row at
           -- position j, i.e. the (j - first position of its h)-th row with that h (h may repeat).
           -- ORDER BY x.h keeps the (key, h) index whatever the statistics say: with a zsets
           -- table analyzed when nearly empty, the generic plan filtered the key's rows by score
           -- index instead (297 rows read per pick of 600)
           WITH r AS MATERIALIZED (
               SELECT i, floor(random() * (${kSpan} + w))::int8 - w AS x, floor(random() * ${kM})::int4 AS j
               FROM generate_series(1, ceil((want - cardinality(picked)) * ${kM / kLambda * 1.2})::int8 + 3) AS i)
           SELECT array_agg(p.el ORDER BY r.i) FILTER (WHERE p.el IS NOT NULL), coalesce(bool_or(cardinality(c.hs) > ${kM}), false)
             INTO batch, overflow
             FROM r
             CROSS JOIN LATERAL (SELECT array_agg(q.h) AS hs FROM (SELECT x.h FROM ${s}.${f.table} x
               WHERE ${rows} AND x.h >= r.x AND x.h < r.x + w ORDER BY x.h LIMIT ${kM + 1}) q) c
             LEFT JOIN LATERAL (SELECT x.${f.id} AS el FROM ${s}.${f.table} x
               WHERE r.j < cardinality(c.hs) AND cardinality(c.hs) <= ${kM} AND ${rows} AND x.h = c.hs[r.j + 1]
               ORDER BY x.h OFFSET r.j + 1 - array_position(c.hs, c.hs[r.j + 1]) LIMIT 1) p ON true;
           EXIT WHEN overflow;
           IF p_count < 0 THEN
             picked := picked || coalesce(batch[1 : want - cardinality(picked)], '{}');
           ELSE
             -- a repeat is skipped: first occurrences in pick order
             picked := ARRAY(SELECT u.e FROM unnest(picked || batch) WITH ORDINALITY AS u(e, o)
               GROUP BY u.e ORDER BY min(u.o) LIMIT want);
           END IF;
           IF cardinality(picked) >= want THEN RETURN QUERY SELECT unnest(picked); RETURN; END IF;
         END LOOP;
       END IF;
       IF p_count > 0 THEN
         RETURN QUERY SELECT x.${f.id} FROM ${s}.${f.table} x WHERE ${rows} ORDER BY random() LIMIT want;
         RETURN;
       END IF;
       -- a PL/pgSQL array variable is expanded: els[i] is O(1) (inside a SQL statement it was O(n))
       els := ARRAY(SELECT x.${f.id} FROM ${s}.${f.table} x WHERE ${rows});
       n := cardinality(els);
       IF n = 0 THEN RETURN; END IF;
       WHILE i < want LOOP
         el := els[1 + floor(random() * n)::int4];
         RETURN NEXT;
         i := i + 1;
       END LOOP;
     END $f$`;
}

/**
 * The statement: $1 db, $2 key, $3 count (int8, as randomPickFunction), $4 now. Rows: kv.type,
 * then the element and `extra` (a column of the family's table joined by identity: a hash's
 * value, a zset's score) in pick order; no row = missing key.
 */
export function randomPickStatement(f: RandomFamily, extra?: string): Statement {
  // LATERAL: one primary-key probe per pick whatever the estimates (as a plain join, the
  // function's default 1000-row estimate gave a hash join over a sequential scan of the table)
  const join = extra === undefined ? '' :
    `LEFT JOIN LATERAL (SELECT x.${extra} FROM ${f.table} x WHERE x.db = k.db AND x.key = k.key AND x.${f.id} = p.el) x ON true`;
  return {
    text: `SELECT k.type, p.el${extra === undefined ? '' : `, x.${extra}`} FROM kv k
           LEFT JOIN LATERAL ${f.fn}(k.db, k.key, CASE WHEN k.type = ${f.type} THEN k.card ELSE 0 END, $3::int8)
             WITH ORDINALITY AS p(el, i) ON true
           ${join}
           WHERE ${liveKey(4)} ORDER BY p.i`,
  };
}
