/**
 * INCRBYFLOAT in Postgres, bit-exact with Redis: Redis parses both operands with strtold, adds
 * them as x87 `long double` (64-bit significand, exponents down to 2^-16445) and prints the sum
 * with "%.17Lf", trailing zeros cut (ld2string LD_STR_HUMAN). Doubles are not enough:
 * 0.1 + 0.2 is "0.3" in Redis, "0.30000000000000004" in doubles. So a finite value here is
 * (-1)^neg · m · 2^e with m < 2^64, held in exact numeric integers; every rounding is
 * round-half-even, as the FPU's and glibc printf's are.
 *
 * strtold's syntax, as Redis accepts it (string2ld): optional sign; decimal digits with an
 * optional point and e-exponent, or 0x hex digits with an optional point and p-exponent, or
 * inf/infinity; nothing before or after (no spaces), nan refused, under 5 KiB. Overflow and
 * underflow to zero are refused (ERANGE), like Redis.
 */
import { live } from '../kv-row';

export function floatFunctions(s: string): string[] {
  return [
    // bit length of a positive integer: estimated from its digits, then corrected exactly
    `CREATE OR REPLACE FUNCTION ${s}.ld_bitlen(n numeric) RETURNS int4 LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE b int4;
     BEGIN
       IF n < 1 THEN RETURN 0; END IF;
       b := greatest(1, floor((length(trunc(n)::text) - 1) * 3.321928094887362)::int4);
       WHILE 2::numeric ^ b <= n LOOP b := b + 1; END LOOP;
       WHILE b > 1 AND 2::numeric ^ (b - 1) > n LOOP b := b - 1; END LOOP;
       RETURN b;
     END $f$`,
    // num/den (both > 0) rounded to a long double: m · 2^e, m in [2^63, 2^64) unless subnormal
    `CREATE OR REPLACE FUNCTION ${s}.ld_round(num numeric, den numeric, OUT m numeric, OUT e int4, OUT inf bool)
     LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE nn numeric; dd numeric; r numeric; lo numeric := 2::numeric ^ 63; hi numeric := 2::numeric ^ 64;
     BEGIN
       inf := false;
       e := ${s}.ld_bitlen(num) - ${s}.ld_bitlen(den) - 64;
       LOOP
         IF e < -16445 THEN e := -16445; END IF;
         nn := num * 2::numeric ^ greatest(0, -e);
         dd := den * 2::numeric ^ greatest(0, e);
         m := div(nn, dd);
         EXIT WHEN e = -16445 AND m < hi;
         IF m >= hi THEN e := e + 1;
         ELSIF m < lo THEN e := e - 1;
         ELSE EXIT;
         END IF;
       END LOOP;
       r := nn - m * dd;
       IF 2 * r > dd OR (2 * r = dd AND mod(m, 2) = 1) THEN m := m + 1; END IF;
       IF m = hi THEN m := lo; e := e + 1; END IF;
       inf := e > 16320;
     END $f$`,
    // strtold as Redis accepts it; ok = false when Redis says "value is not a valid float"
    `CREATE OR REPLACE FUNCTION ${s}.ld_parse(v bytea, OUT ok bool, OUT neg bool, OUT m numeric, OUT e int4,
       OUT inf bool)
     LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE t text; g text[]; digits text; x int8; num numeric; den numeric; r record;
     BEGIN
       ok := false; neg := false; m := 0; e := 0; inf := false;
       IF length(v) = 0 OR length(v) >= 5120 THEN RETURN; END IF;
       t := encode(v, 'escape');
       IF strpos(t, E'\\\\') > 0 THEN RETURN; END IF; -- a byte strtold never reads
       neg := left(t, 1) = '-';
       IF left(t, 1) IN ('-', '+') THEN t := substr(t, 2); END IF;
       IF lower(t) IN ('inf', 'infinity') THEN ok := true; inf := true; RETURN; END IF;
       g := regexp_match(t, '^([0-9]*)(?:\\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?$');
       IF g IS NOT NULL AND g[1] || coalesce(g[2], '') <> '' THEN
         digits := g[1] || coalesce(g[2], '');
         x := -length(coalesce(g[2], ''));
         IF g[3] IS NOT NULL THEN
           IF length(ltrim(g[3], '+-0')) > 7 THEN x := x + sign(('0' || left(g[3], 1) || '1')::int4) * 99999999;
           ELSE x := x + g[3]::int8; END IF;
         END IF;
         num := digits::numeric;
         IF num = 0 THEN ok := true; RETURN; END IF;
         -- beyond ±1e4950 the result is inf or zero either way: ERANGE
         IF x + length(ltrim(digits, '0')) > 4940 OR x + length(ltrim(digits, '0')) < -4960 THEN RETURN; END IF;
         den := 1;
         IF x >= 0 THEN num := num * 10::numeric ^ x; ELSE den := 10::numeric ^ (-x); END IF;
       ELSE
         g := regexp_match(t, '^0[xX]([0-9a-fA-F]*)(?:\\.([0-9a-fA-F]*))?(?:[pP]([-+]?[0-9]+))?$');
         IF g IS NULL OR g[1] || coalesce(g[2], '') = '' THEN RETURN; END IF;
         digits := g[1] || coalesce(g[2], '');
         IF length(digits) > 1300 THEN RETURN; END IF;
         x := -4 * length(coalesce(g[2], ''));
         IF g[3] IS NOT NULL THEN
           IF length(ltrim(g[3], '+-0')) > 7 THEN x := x + sign(('0' || left(g[3], 1) || '1')::int4) * 99999999;
           ELSE x := x + g[3]::int8; END IF;
         END IF;
         num := 0;
         FOR i IN 1 .. length(digits) LOOP
           num := num * 16 + strpos('0123456789abcdef', lower(substr(digits, i, 1))) - 1;
         END LOOP;
         IF num = 0 THEN ok := true; RETURN; END IF;
         IF x > 16400 OR x < -16600 - 4 * length(digits) THEN RETURN; END IF;
         den := 1;
         IF x >= 0 THEN num := num * 2::numeric ^ x; ELSE den := 2::numeric ^ (-x); END IF;
       END IF;
       SELECT * INTO r FROM ${s}.ld_round(num, den);
       IF r.inf OR r.m = 0 THEN RETURN; END IF;
       ok := true; m := r.m; e := r.e;
     END $f$`,
    // a + b, both finite; exact sum, one rounding
    `CREATE OR REPLACE FUNCTION ${s}.ld_add(an bool, am numeric, ae int4, bn bool, bm numeric, be int4,
       OUT neg bool, OUT m numeric, OUT e int4, OUT inf bool)
     LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE lo int4; sa numeric; sb numeric; t numeric; r record;
     BEGIN
       inf := false;
       IF bm = 0 THEN neg := an; m := am; e := ae; RETURN; END IF;
       IF am = 0 THEN neg := bn; m := bm; e := be; RETURN; END IF;
       -- one operand below 2^-6 ulp of the other cannot move the rounded sum
       IF ae + ${s}.ld_bitlen(am) - be - ${s}.ld_bitlen(bm) > 70 THEN neg := an; m := am; e := ae; RETURN; END IF;
       IF be + ${s}.ld_bitlen(bm) - ae - ${s}.ld_bitlen(am) > 70 THEN neg := bn; m := bm; e := be; RETURN; END IF;
       lo := least(ae, be);
       sa := am * 2::numeric ^ (ae - lo) * CASE WHEN an THEN -1 ELSE 1 END;
       sb := bm * 2::numeric ^ (be - lo) * CASE WHEN bn THEN -1 ELSE 1 END;
       t := sa + sb;
       neg := t < 0; m := 0; e := 0;
       IF t = 0 THEN neg := false; RETURN; END IF;
       SELECT * INTO r FROM ${s}.ld_round(abs(t) * 2::numeric ^ greatest(0, lo), 2::numeric ^ greatest(0, -lo));
       m := r.m; e := r.e; inf := r.inf;
     END $f$`,
    // "%.17Lf" of ±m·2^e, trailing zeros and a trailing point cut, "-0" printed "0"
    `CREATE OR REPLACE FUNCTION ${s}.ld_format(neg bool, m numeric, e int4) RETURNS text
     LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE p numeric := 10::numeric ^ 17; d numeric; q numeric; r numeric; ip text; fp text;
     BEGIN
       IF e >= 0 THEN
         ip := trunc(m * 2::numeric ^ e)::text; fp := '';
       ELSE
         d := 2::numeric ^ (-e);
         q := div(m * p, d);
         r := m * p - q * d;
         IF 2 * r > d OR (2 * r = d AND mod(q, 2) = 1) THEN q := q + 1; END IF;
         ip := div(q, p)::text;
         fp := rtrim(lpad(mod(q, p)::text, 17, '0'), '0');
       END IF;
       IF fp <> '' THEN ip := ip || '.' || fp; END IF;
       IF neg AND ip <> '0' THEN ip := '-' || ip; END IF;
       RETURN ip;
     END $f$`,
    // INCRBYFLOAT key incr: status 1 done, 2 WRONGTYPE, 3 not a valid float (the value, then the
    // argument: Redis's order), 4 NaN or Infinity. Keeps the TTL, like Redis.
    `CREATE OR REPLACE FUNCTION ${s}.incr_by_float(p_db int2, p_key bytea, p_incr bytea, p_now int8,
       OUT status int2, OUT result bytea)
     LANGUAGE plpgsql AS $f$
     DECLARE a record; b record; r record; c record; txt text; live bool;
     BEGIN
       LOOP
         SELECT type, value, expires_at INTO r FROM ${s}.kv WHERE db = p_db AND key = p_key FOR UPDATE;
         live := FOUND AND ${live('r')};
         IF live THEN
           IF r.type <> 0 THEN status := 2; RETURN; END IF;
           SELECT * INTO a FROM ${s}.ld_parse(r.value);
           IF NOT a.ok THEN status := 3; RETURN; END IF;
         ELSE
           SELECT true AS ok, false AS neg, 0::numeric AS m, 0 AS e, false AS inf INTO a;
         END IF;
         SELECT * INTO b FROM ${s}.ld_parse(p_incr);
         IF NOT b.ok THEN status := 3; RETURN; END IF;
         IF a.inf OR b.inf THEN status := 4; RETURN; END IF;
         SELECT * INTO c FROM ${s}.ld_add(a.neg, a.m, a.e, b.neg, b.m, b.e);
         IF c.inf THEN status := 4; RETURN; END IF;
         txt := ${s}.ld_format(c.neg, c.m, c.e);
         result := convert_to(txt, 'UTF8');
         status := 1;
         IF live THEN
           UPDATE ${s}.kv SET value = result, version = txid_current() WHERE db = p_db AND key = p_key;
           RETURN;
         END IF;
         DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key;
         INSERT INTO ${s}.kv (db, key, type, value, expires_at, version) VALUES (p_db, p_key, 0, result, NULL, txid_current())
           ON CONFLICT (db, key) DO NOTHING;
         IF FOUND THEN RETURN; END IF;
       END LOOP;
     END $f$`,
  ];
}
