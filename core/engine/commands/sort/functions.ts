/**
 * SORT / SORT_RO in Postgres, one statement (sortCommand): the list, set or sorted set is read,
 * weights looked up by the BY pattern (a string key, or a hash field with `->`), sorted, cut by
 * LIMIT, and each GET pattern looked up for the elements kept; with STORE the output replaces the
 * destination as a list. Patterns arrive split by the worker: prefix, suffix and hash field
 * around the first `*` (./pattern.ts).
 *
 * Redis's order: numbers (strtod: leading blanks, hex, inf; trailing bytes, NaN and ERANGE
 * refused: "One or more scores can't be converted into double"), a missing weight is 0, equal
 * numbers by the elements' bytes; ALPHA by bytes with STORE, else as strcoll in the C locale
 * (strcmp: up to the first NUL byte); a missing BY weight first; equal ALPHA keys keep the
 * collection's order (glibc's qsort is a stable merge sort). DESC reverses the comparisons, not
 * the ties. A BY pattern without `*` (`nosort`) keeps the collection's order: a list's or a
 * sorted set's, reversed by DESC; a set's is Redis's intset order (ascending numbers) when every
 * member is an integer and there are at most 512, else member bytes (Redis's hash table order is
 * random), and with STORE a set is sorted ALPHA (Redis does so for replication).
 *
 * Status: 1 done, 2 WRONGTYPE, 8 a weight is not a number. Rows (status, i, j, value): output
 * element i (from 1), GET j (0 without GETs); with STORE one row whose i is the output length.
 */
import { kWatchMark, live } from '../kv-row';
import { kOverMark } from '../collection/functions';

const kList = 2;
const kSet = 3;
const kZset = 4;
const kString = 0;
const kHash = 1;

export function sortFunctions(s: string): string[] {
  // the value a pattern names for element m: a string key's value or a hash field (NULL: none)
  const lookup = (kind: string, pre: string, post: string, field: string, m: string) => `CASE ${kind}
      WHEN 0 THEN ${m}
      WHEN 2 THEN (SELECT k.value FROM ${s}.kv k WHERE k.db = p_db AND k.key = ${pre} || ${m} || ${post}
                     AND k.type = ${kString} AND ${live('k')})
      WHEN 3 THEN (SELECT h.value FROM ${s}.kv k JOIN ${s}.hashes h ON h.db = k.db AND h.key = k.key AND h.field = ${field}
                     WHERE k.db = p_db AND k.key = ${pre} || ${m} || ${post} AND k.type = ${kHash} AND ${live('k')})
      END`;
  return [
    // strtod as SORT reads a weight (a C string: it ends at a NUL byte); NULL when Redis refuses it
    `CREATE OR REPLACE FUNCTION ${s}.sort_strtod(p_v bytea) RETURNS float8 LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE v bytea := p_v; z int4 := position('\\x00'::bytea IN p_v); t text; r float8;
     BEGIN
       IF z > 0 THEN v := substring(v FROM 1 FOR z - 1); END IF;
       IF length(v) = 0 THEN RETURN 0; END IF; -- nothing parsed, and nothing after it
       t := encode(v, 'escape');
       IF strpos(t, '\\') > 0 THEN RETURN NULL; END IF; -- bytes above 127 (and backslashes)
       t := ltrim(t, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13));
       IF t ~* '^[+-]?(inf|infinity)$' THEN RETURN t::float8; END IF;
       IF t !~ '^[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?$'
          AND t !~ '^[+-]?0[xX]([0-9a-fA-F]+\\.?[0-9a-fA-F]*|\\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?$' THEN RETURN NULL; END IF;
       IF length(t) < 300 AND t !~ '[eEpPxX]' THEN r := t::float8;
       ELSE
         BEGIN r := t::float8;
         EXCEPTION WHEN numeric_value_out_of_range THEN RETURN NULL; -- ERANGE
         END;
       END IF;
       -- glibc reports ERANGE for a result below the smallest normal double
       IF r <> 0 AND abs(r) < '2.2250738585072014e-308'::float8 THEN RETURN NULL; END IF;
       RETURN r;
     END $f$`,
    // p_by: 0 the elements, 1 nosort, 2 string key, 3 hash field; GET kinds 0 '#', 1 none (nil), 2, 3 as BY.
    // With p_store one row (1, output length, 1 if the destination existed else 0, NULL): Redis
    // fires 'del' for an empty output only when it deleted something
    `CREATE OR REPLACE FUNCTION ${s}.sort_run(p_db int2, p_key bytea, p_by int2, p_by_pre bytea, p_by_post bytea,
       p_by_field bytea, p_get int2[], p_get_pre bytea[], p_get_post bytea[], p_get_field bytea[], p_desc bool, p_alpha bool,
       p_start int8, p_count int8, p_store bytea, p_now int8)
     RETURNS TABLE (status int2, i int8, j int4, val bytea) LANGUAGE plpgsql AS $f$
     #variable_conflict use_column
     DECLARE r record; els bytea[]; n int8; a int8; b int8; bad bool; ng int4 := coalesce(cardinality(p_get), 0);
       vals bytea[]; out_n int8; by_kind int2 := p_by; alpha bool := p_alpha; had int4 := 0;
     BEGIN
       SELECT k.type, k.card INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key AND ${live('k')};
       IF FOUND AND r.type NOT IN (${kList}, ${kSet}, ${kZset}) THEN
         RETURN QUERY SELECT 2::int2, NULL::int8, NULL::int4, NULL::bytea; RETURN;
       END IF;
       IF FOUND AND r.type = ${kSet} AND by_kind = 1 AND p_store IS NOT NULL THEN by_kind := 0; alpha := true; END IF;
       -- the collection in its own order (a list's; a sorted set's by score; a set's, see the top)
       IF NOT FOUND THEN els := '{}';
       ELSIF r.type = ${kList} THEN
         SELECT array_agg(l.value ORDER BY l.pos) INTO els FROM ${s}.lists l WHERE l.db = p_db AND l.key = p_key;
       ELSIF r.type = ${kZset} THEN
         SELECT array_agg(z.member ORDER BY z.score, z.member) INTO els FROM ${s}.zsets z
           WHERE z.db = p_db AND z.key = p_key AND z.score >= '-Infinity'::float8;
       ELSE
         SELECT CASE WHEN count(*) <= 512 AND bool_and(encode(x.member, 'escape') ~ '^(0|-?[1-9][0-9]{0,18})$'
                       AND encode(x.member, 'escape')::numeric BETWEEN -9223372036854775808 AND 9223372036854775807)
                  THEN array_agg(x.member ORDER BY CASE WHEN encode(x.member, 'escape') ~ '^(0|-?[1-9][0-9]{0,18})$'
                    THEN encode(x.member, 'escape')::numeric END, x.member)
                  ELSE array_agg(x.member ORDER BY x.member) END
           INTO els FROM ${s}.sets x WHERE x.db = p_db AND x.key = p_key;
       END IF;
       els := coalesce(els, '{}'); n := cardinality(els);
       a := least(greatest(p_start, 0), n);
       b := least(greatest(p_count, -1), n);
       b := CASE WHEN b < 0 THEN n ELSE least(a + b, n) END;
       IF by_kind = 1 THEN
         IF p_desc AND r.type IN (${kList}, ${kZset}) THEN
           SELECT array_agg(e.m ORDER BY e.o DESC) INTO els FROM unnest(els) WITH ORDINALITY AS e(m, o);
         END IF;
       ELSE
         SELECT bool_or(NOT alpha AND w.v IS NOT NULL AND ${s}.sort_strtod(w.v) IS NULL),
             array_agg(w.m ORDER BY
               CASE WHEN NOT alpha AND NOT p_desc THEN coalesce(${s}.sort_strtod(w.v), 0) END,
               CASE WHEN NOT alpha AND p_desc THEN coalesce(${s}.sort_strtod(w.v), 0) END DESC,
               CASE WHEN NOT alpha AND NOT p_desc THEN w.m END,
               CASE WHEN NOT alpha AND p_desc THEN w.m END DESC,
               CASE WHEN alpha AND NOT p_desc THEN w.k END ASC NULLS FIRST,
               CASE WHEN alpha AND p_desc THEN w.k END DESC NULLS LAST,
               w.o)
           INTO bad, els FROM (
             SELECT e.m, e.o, v.v, CASE WHEN p_store IS NULL AND position('\\x00'::bytea IN v.v) > 0
                 THEN substring(v.v FROM 1 FOR position('\\x00'::bytea IN v.v) - 1) ELSE v.v END AS k
               FROM unnest(els) WITH ORDINALITY AS e(m, o)
               CROSS JOIN LATERAL (SELECT ${lookup('by_kind', 'p_by_pre', 'p_by_post', 'p_by_field', 'e.m')} AS v) v) w;
         IF bad THEN RETURN QUERY SELECT 8::int2, NULL::int8, NULL::int4, NULL::bytea; RETURN; END IF;
         els := coalesce(els, '{}');
       END IF;
       els := els[a + 1 : b];
       IF p_store IS NULL THEN
         IF ng = 0 THEN
           RETURN QUERY SELECT 1::int2, e.o, 0, e.m FROM unnest(els) WITH ORDINALITY AS e(m, o) ORDER BY e.o;
         ELSE
           RETURN QUERY SELECT 1::int2, e.o, g.o::int4, ${lookup('g.kind', 'g.pre', 'g.post', 'g.field', 'e.m')}
             FROM unnest(els) WITH ORDINALITY AS e(m, o)
             CROSS JOIN unnest(p_get, p_get_pre, p_get_post, p_get_field) WITH ORDINALITY AS g(kind, pre, post, field, o)
             ORDER BY e.o, g.o;
         END IF;
         RETURN;
       END IF;
       IF ng = 0 THEN vals := els;
       ELSE
         SELECT array_agg(coalesce(${lookup('g.kind', 'g.pre', 'g.post', 'g.field', 'e.m')}, ''::bytea) ORDER BY e.o, g.o)
           INTO vals FROM unnest(els) WITH ORDINALITY AS e(m, o)
           CROSS JOIN unnest(p_get, p_get_pre, p_get_post, p_get_field) WITH ORDINALITY AS g(kind, pre, post, field, o);
       END IF;
       out_n := coalesce(cardinality(vals), 0);
       -- the output replaces the destination as a list (an empty output deletes it)
       LOOP
         DELETE FROM ${s}.kv WHERE db = p_db AND key = p_store AND type <> ${kWatchMark};
         IF FOUND THEN had := 1; END IF;
         EXIT WHEN out_n = 0;
         INSERT INTO ${s}.kv AS k (db, key, type, card, head, version) VALUES (p_db, p_store, ${kList}, out_n, 0, txid_current())
           ${kOverMark};
         IF FOUND THEN
           INSERT INTO ${s}.lists (db, key, pos, value) SELECT p_db, p_store, t.o - 1, t.v FROM unnest(vals) WITH ORDINALITY AS t(v, o);
           EXIT;
         END IF;
       END LOOP;
       RETURN QUERY SELECT 1::int2, out_n, had, NULL::bytea;
     END $f$`,
  ];
}
