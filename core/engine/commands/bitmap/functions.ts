/**
 * Bitmap commands on string values, in Postgres: the value never leaves it (a SETBIT on a 64 MB
 * bitmap reads one byte and writes one bit with set_bit; BITCOUNT is bit_count over a substring;
 * BITPOS skips whole bytes with ltrim). Redis numbers bits from the most significant bit of the
 * first byte; Postgres's get_bit/set_bit from the least significant bit of each byte, so Redis's
 * bit o is Postgres's bit (o & ~7) | (7 - (o & 7)).
 *
 * Writers lock the kv row first (FOR UPDATE), as the string family's functions do: concurrent
 * SETBITs on one key from any lane or instance serialise there. A missing or expired key is
 * created as a string without TTL. Status codes: 0 missing, 1 done, 2 WRONGTYPE.
 *
 * Bit operators share one precedence level in Postgres: every bit expression is parenthesised.
 */
import { kWatchMark, live } from '../kv-row';

/** the popcount of byte expression `x` (0..255) */
const popcount = (x: string) => `bit_count(set_byte('\\x00'::bytea, 0, ${x}))`;

/**
 * PL/pgSQL inside a LOOP, after `SELECT … INTO r … FOR UPDATE` found no live row: the string
 * `value` without TTL takes the key's place (an expired row goes first), then RETURN; another
 * session creating the key meanwhile sends the LOOP round again.
 */
function createString(s: string, key: string, value: string): string {
  return `IF FOUND THEN DELETE FROM ${s}.kv WHERE db = p_db AND key = ${key}; END IF;
         INSERT INTO ${s}.kv (db, key, type, value, expires_at, version) VALUES (p_db, ${key}, 0, ${value}, NULL, txid_current())
           ON CONFLICT (db, key) DO NOTHING;
         IF FOUND THEN RETURN; END IF;`;
}

export function bitmapFunctions(s: string): string[] {
  return [
    // SETBIT key offset 0|1: old = the bit before. An unchanged bit of a long enough value is no
    // write at all (Redis 7.0 neither signals the key nor fires 'setbit' then); wrote says
    // whether there was one (the bit changed, or the value was created or grown).
    `CREATE OR REPLACE FUNCTION ${s}.bit_set(p_db int2, p_key bytea, p_off int8, p_on int4, p_now int8,
       OUT status int2, OUT old int4, OUT wrote bool) LANGUAGE plpgsql AS $f$
     DECLARE r record; byte int8 := p_off >> 3; idx int8 := (p_off & ~7::int8) | (7 - (p_off & 7));
     BEGIN
       status := 1; old := 0; wrote := false;
       LOOP
         SELECT k.type, k.expires_at, length(k.value)::int8 AS len,
             CASE WHEN length(k.value) > byte THEN get_byte(substring(k.value FROM (byte + 1)::int4 FOR 1), 0) END AS b
           INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key FOR UPDATE;
         IF FOUND AND ${live('r')} THEN
           IF r.type <> 0 THEN status := 2; RETURN; END IF;
           old := coalesce((r.b >> (7 - (p_off & 7))::int4) & 1, 0);
           IF r.len > byte AND old = p_on THEN RETURN; END IF;
           wrote := true;
           UPDATE ${s}.kv SET value = set_bit(CASE WHEN r.len > byte THEN value ELSE value || ${s}.zero_bytes(byte + 1 - r.len) END,
               idx, p_on), version = txid_current()
             WHERE db = p_db AND key = p_key;
           RETURN;
         END IF;
         wrote := true;
         ${createString(s, 'p_key', `set_bit(${s}.zero_bytes(byte + 1), idx, p_on)`)}
       END LOOP;
     END $f$`,
    // BITCOUNT key [start end [BYTE|BIT]]: Redis's index arithmetic (bitcountCommand); in BIT
    // units the bytes at both ends are counted whole, then the bits outside the range taken off
    `CREATE OR REPLACE FUNCTION ${s}.bit_count(p_db int2, p_key bytea, p_range bool, p_start int8, p_end int8, p_bit bool,
       p_now int8, OUT status int2, OUT n int8) LANGUAGE plpgsql STABLE AS $f$
     DECLARE r record; tot int8; a int8 := p_start; b int8 := p_end; fm int4 := 0; lm int4 := 0;
     BEGIN
       status := 1; n := 0;
       SELECT k.type, length(k.value)::int8 AS len INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key AND ${live('k')};
       IF NOT FOUND THEN status := 0; RETURN; END IF;
       IF r.type <> 0 THEN status := 2; RETURN; END IF;
       IF NOT p_range THEN
         SELECT bit_count(k.value) INTO n FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key;
         RETURN;
       END IF;
       tot := CASE WHEN p_bit THEN r.len * 8 ELSE r.len END;
       IF a < 0 AND b < 0 AND a > b THEN RETURN; END IF;
       IF a < 0 THEN a := tot + a; END IF;
       IF b < 0 THEN b := tot + b; END IF;
       IF a < 0 THEN a := 0; END IF;
       IF b < 0 THEN b := 0; END IF;
       IF b >= tot THEN b := tot - 1; END IF;
       IF a > b THEN RETURN; END IF;
       IF p_bit THEN
         fm := (~((1 << (8 - (a & 7))::int4) - 1)) & 255;
         lm := (1 << (7 - (b & 7))::int4) - 1;
         a := a >> 3; b := b >> 3;
       END IF;
       SELECT bit_count(x.w) - ${popcount('get_byte(x.w, 0) & fm')} - ${popcount('get_byte(x.w, (b - a)::int4) & lm')} INTO n
         FROM (SELECT substring(k.value FROM (a + 1)::int4 FOR (b - a + 1)::int4) AS w FROM ${s}.kv k
               WHERE k.db = p_db AND k.key = p_key) x;
     END $f$`,
    // BITPOS key bit [start [end [BYTE|BIT]]] (p_args: how many of start, end, unit were given).
    // The range's bytes, the bits outside it at both ends set to the opposite of p_bit, then
    // ltrim drops the leading bytes that hold no p_bit. Not found: -1, except a clear bit
    // searched without an end, which is the first bit past the value (Redis pads with zeros).
    `CREATE OR REPLACE FUNCTION ${s}.bit_pos(p_db int2, p_key bytea, p_bit int4, p_args int2, p_start int8, p_end int8,
       p_unit_bit bool, p_now int8, OUT status int2, OUT pos int8) LANGUAGE plpgsql STABLE AS $f$
     DECLARE r record; tot int8; a int8 := 0; b int8; w bytea; t bytea; x int4; last int4; i int4;
     BEGIN
       status := 1;
       SELECT k.type, length(k.value)::int8 AS len INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key AND ${live('k')};
       IF NOT FOUND THEN status := 0; pos := CASE WHEN p_bit = 1 THEN -1 ELSE 0 END; RETURN; END IF;
       IF r.type <> 0 THEN status := 2; RETURN; END IF;
       b := r.len - 1;
       IF p_args >= 1 THEN
         tot := CASE WHEN p_unit_bit THEN r.len * 8 ELSE r.len END;
         a := p_start;
         IF p_args >= 2 THEN b := p_end; END IF;
         IF a < 0 THEN a := tot + a; END IF;
         IF b < 0 THEN b := tot + b; END IF;
         IF a < 0 THEN a := 0; END IF;
         IF b < 0 THEN b := 0; END IF;
         IF b >= tot THEN b := tot - 1; END IF;
       END IF;
       IF a > b THEN pos := -1; RETURN; END IF;
       IF NOT p_unit_bit THEN a := a * 8; b := b * 8 + 7; END IF;
       SELECT substring(k.value FROM ((a >> 3) + 1)::int4 FOR ((b >> 3) - (a >> 3) + 1)::int4) INTO w
         FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key;
       last := length(w) - 1;
       IF p_bit = 1 THEN
         w := set_byte(w, 0, get_byte(w, 0) & (255 >> (a & 7)::int4));
         w := set_byte(w, last, get_byte(w, last) & (~((1 << (7 - (b & 7))::int4) - 1)));
         t := ltrim(w, '\\x00'::bytea);
       ELSE
         w := set_byte(w, 0, get_byte(w, 0) | ((~(255 >> (a & 7)::int4)) & 255));
         w := set_byte(w, last, get_byte(w, last) | ((1 << (7 - (b & 7))::int4) - 1));
         t := ltrim(w, '\\xff'::bytea);
       END IF;
       IF length(t) = 0 THEN
         pos := CASE WHEN p_bit = 1 OR p_args >= 2 THEN -1 ELSE ((b >> 3) + 1) * 8 END;
         RETURN;
       END IF;
       x := get_byte(t, 0);
       IF p_bit = 0 THEN x := 255 - x; END IF;
       i := 0;
       WHILE (x & (128 >> i)) = 0 LOOP i := i + 1; END LOOP;
       pos := ((a >> 3) + length(w) - length(t)) * 8 + i;
     END $f$`,
    // BITOP op dst key…: p_op 0 AND, 1 OR, 2 XOR, 3 NOT. Missing sources are empty strings;
    // shorter ones are padded with zero bytes to the longest (n); dst becomes the result as a
    // string without TTL, or is deleted when n = 0. The bytes go through bit strings (hex text)
    // for Postgres's C bitwise operators: no byte loop in PL/pgSQL. gone: n = 0 deleted a key
    // (Redis fires 'del' then, and nothing for an empty result over no key).
    `CREATE OR REPLACE FUNCTION ${s}.bit_op(p_db int2, p_op int2, p_dst bytea, p_keys bytea[], p_now int8,
       OUT status int2, OUT n int8, OUT gone bool) LANGUAGE plpgsql AS $f$
     DECLARE r record; mk bytea; vals bytea[] := '{}'; v bytea; acc varbit; cur varbit; j int4 := 0;
     BEGIN
       status := 1; n := 0; gone := false;
       PERFORM 1 FROM ${s}.kv WHERE db = p_db AND key = p_dst FOR UPDATE;
       FOREACH mk IN ARRAY p_keys LOOP
         SELECT k.type, k.value INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = mk AND ${live('k')};
         IF FOUND AND r.type <> 0 THEN status := 2; RETURN; END IF;
         v := CASE WHEN FOUND THEN r.value ELSE ''::bytea END;
         vals := vals || v;
         IF length(v) > n THEN n := length(v); END IF;
       END LOOP;
       IF n = 0 THEN
         DELETE FROM ${s}.kv WHERE db = p_db AND key = p_dst AND type <> ${kWatchMark};
         gone := FOUND;
         RETURN;
       END IF;
       FOREACH v IN ARRAY vals LOOP
         cur := ('x' || encode(v || ${s}.zero_bytes(n - length(v)), 'hex'))::varbit;
         j := j + 1;
         IF j = 1 THEN acc := cur;
         ELSIF p_op = 0 THEN acc := acc & cur;
         ELSIF p_op = 1 THEN acc := acc | cur;
         ELSE acc := acc # cur; END IF;
       END LOOP;
       IF p_op = 3 THEN acc := ~acc; END IF;
       v := substring(varbit_send(acc) FROM 5);
       INSERT INTO ${s}.kv (db, key, type, value, expires_at, version) VALUES (p_db, p_dst, 0, v, NULL, txid_current())
         ON CONFLICT (db, key) DO UPDATE SET type = 0, value = excluded.value, expires_at = NULL, version = txid_current();
     END $f$`,
    bitFieldWrap(s),
    bitField(s),
  ];
}

/**
 * bf_s64(x): x as C's int64_t after unsigned 64-bit arithmetic (x mod 2^64, two's complement):
 * BITFIELD's overflow checks compute in uint64_t and cast back, as Redis does.
 */
function bitFieldWrap(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.bf_s64(x numeric) RETURNS numeric LANGUAGE sql IMMUTABLE AS $f$
       SELECT CASE WHEN m >= 9223372036854775808 THEN m - 18446744073709551616 ELSE m END
         FROM (SELECT mod(mod(x, 18446744073709551616) + 18446744073709551616, 18446744073709551616) AS m) t
     $f$`;
}

/**
 * BITFIELD / BITFIELD_RO: the operations in order (p_ops 0 GET, 1 SET, 2 INCRBY; p_ow 0 WRAP,
 * 1 SAT, 2 FAIL), one row each (val NULL: FAIL refused it). With p_write the key is locked and
 * created or grown to p_grow bits first (Redis does so before any operation, FAIL or not).
 * Each field is read from a 9-byte window (72 bits: any 64-bit field at any bit offset) as a
 * bit string; overflow follows Redis's checkUnsignedBitfieldOverflow and
 * checkSignedBitfieldOverflow, int64 wrap-arounds included (bf_s64). ev on each row: a SET or
 * INCRBY so far changed a field or was applied to a value created or grown for it (Redis counts
 * those as changes and fires 'setbit' for any): the last row's is the command's.
 */
function bitField(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.bit_field(p_db int2, p_key bytea, p_ops int2[], p_signed bool[], p_bits int4[],
       p_offs int8[], p_vals int8[], p_ow int2[], p_write bool, p_grow int8, p_now int8)
     RETURNS TABLE (status int2, val int8, ev bool) LANGUAGE plpgsql AS $f$
     #variable_conflict use_variable
     DECLARE r record; v bytea := ''::bytea; need int8 := (p_grow >> 3) + 1; i int4; bits int4; sh int4; byte int8;
       w bytea; wb bit(72); u numeric; old numeric; fv numeric; incr numeric; mx numeric; mn numeric; nv numeric;
       over int4; nbytes int4; grown bool := false; changed bool := false;
     BEGIN
       IF p_write THEN
         LOOP
           SELECT k.type, k.expires_at, k.value INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key FOR UPDATE;
           IF FOUND AND ${live('r')} THEN
             IF r.type <> 0 THEN status := 2; val := NULL; ev := false; RETURN NEXT; RETURN; END IF;
             v := r.value || ''::bytea;
             IF length(v) < need THEN v := v || ${s}.zero_bytes(need - length(v)); grown := true; END IF;
             EXIT;
           END IF;
           IF FOUND THEN DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key; END IF;
           v := ${s}.zero_bytes(need);
           INSERT INTO ${s}.kv (db, key, type, value, expires_at, version) VALUES (p_db, p_key, 0, v, NULL, txid_current())
             ON CONFLICT (db, key) DO NOTHING;
           IF FOUND THEN grown := true; EXIT; END IF;
         END LOOP;
       ELSE
         SELECT k.type, k.value INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key AND ${live('k')};
         IF FOUND THEN
           IF r.type <> 0 THEN status := 2; val := NULL; ev := false; RETURN NEXT; RETURN; END IF;
           v := r.value;
         END IF;
       END IF;
       status := 1; ev := false;
       FOR i IN 1 .. cardinality(p_ops) LOOP
         bits := p_bits[i]; byte := p_offs[i] >> 3; sh := (p_offs[i] & 7)::int4;
         w := substring(v FROM (byte + 1)::int4 FOR 9);
         IF length(w) < 9 THEN w := w || ${s}.zero_bytes(9 - length(w)); END IF;
         wb := ('x' || encode(w, 'hex'))::bit(72);
         u := (repeat('0', 64 - bits)::varbit || substring(wb FROM sh + 1 FOR bits))::bit(64)::int8;
         IF u < 0 THEN u := u + 18446744073709551616; END IF;
         -- the field: unsigned u, or signed (two's complement of its width)
         old := CASE WHEN p_signed[i] AND u >= 2 ^ (bits - 1)::numeric THEN u - 2 ^ bits::numeric ELSE u END;
         old := trunc(old);
         IF p_ops[i] = 0 THEN val := old::int8; RETURN NEXT; CONTINUE; END IF;
         IF p_ops[i] = 1 THEN fv := p_vals[i]; incr := 0; ELSE fv := old; incr := p_vals[i]; END IF;
         over := 0;
         IF p_signed[i] THEN
           mx := CASE WHEN bits = 64 THEN 9223372036854775807 ELSE trunc(2 ^ (bits - 1)::numeric) - 1 END;
           mn := -mx - 1;
           IF fv > mx OR (bits <> 64 AND incr > ${s}.bf_s64(mx - fv))
               OR (fv >= 0 AND incr > 0 AND incr > ${s}.bf_s64(mx - fv)) THEN over := 1;
           ELSIF fv < mn OR (bits <> 64 AND incr < ${s}.bf_s64(mn - fv))
               OR (fv < 0 AND incr < 0 AND incr < ${s}.bf_s64(mn - fv)) THEN over := -1;
           END IF;
           IF over = 0 THEN nv := fv + incr;
           ELSIF p_ow[i] = 1 THEN nv := CASE WHEN over = 1 THEN mx ELSE mn END;
           ELSE
             nv := mod(mod(fv + incr, 2 ^ bits::numeric) + 2 ^ bits::numeric, 2 ^ bits::numeric);
             IF nv >= 2 ^ (bits - 1)::numeric THEN nv := nv - 2 ^ bits::numeric; END IF;
             nv := trunc(nv);
           END IF;
         ELSE
           IF fv < 0 THEN fv := fv + 18446744073709551616; END IF; -- (uint64_t) of the SET value
           mx := trunc(2 ^ bits::numeric) - 1;
           IF fv > mx OR (incr > 0 AND incr > ${s}.bf_s64(mx - fv)) THEN over := 1;
           ELSIF incr < 0 AND incr < ${s}.bf_s64(-fv) THEN over := -1;
           END IF;
           IF over = 0 THEN nv := fv + incr;
           ELSIF p_ow[i] = 1 THEN nv := CASE WHEN over = 1 THEN mx ELSE 0 END;
           ELSE nv := trunc(mod(mod(fv + incr, 2 ^ bits::numeric) + 2 ^ bits::numeric, 2 ^ bits::numeric));
           END IF;
         END IF;
         IF over <> 0 AND p_ow[i] = 2 THEN val := NULL; RETURN NEXT; CONTINUE; END IF;
         val := CASE WHEN p_ops[i] = 1 THEN old ELSE nv END;
         IF grown OR nv <> old THEN changed := true; END IF;
         ev := changed;
         RETURN NEXT;
         wb := overlay(wb PLACING substring(${s}.bf_s64(nv)::int8::bit(64) FROM 65 - bits FOR bits) FROM sh + 1 FOR bits);
         nbytes := ((sh + bits - 1) >> 3) + 1;
         v := overlay(v PLACING substring(bit_send(wb) FROM 5 FOR nbytes) FROM (byte + 1)::int4 FOR nbytes);
       END LOOP;
       -- Redis signals the key modified (and fires 'setbit') when a SET or INCRBY changed a field
       -- or the value grew for it; a value grown only for operations FAIL refused stays grown
       IF changed OR grown THEN
         UPDATE ${s}.kv SET value = v, version = CASE WHEN changed THEN txid_current() ELSE version END
           WHERE db = p_db AND key = p_key;
       END IF;
     END $f$`;
}
