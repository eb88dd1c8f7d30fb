/**
 * HyperLogLog writes in Postgres, on Redis's own string format (./registers.ts has the layout):
 * PFADD applies the (register, count) pairs the worker hashed, in argument order, with Redis's
 * sparse algorithm (hllSparseSet: split the opcode, merge equal VAL neighbours within 5 opcodes,
 * promote to dense past hll-sparse-max-bytes or a count above 32), so the bytes equal
 * redis-server's for the same inserts. The row is locked first: concurrent PFADDs from any lane
 * or instance serialise on it, none is lost.
 *
 * Why here and not in the worker: a command is one statement on its lane (a read, a computation
 * in the worker, then a compare-and-set write would let the client's next command overtake the
 * write, and could not run inside MULTI or a script). Measured on this machine (detoasted value):
 * the dense register histogram is ~3 ms of PL/pgSQL (16384 registers, 4 per 3-byte group), so
 * PFCOUNT of several keys, which writes nothing, merges in the worker instead (~0.1 ms a key).
 *
 * Bit operators share one precedence level in Postgres (`a | b << 8` is `(a | b) << 8`): every
 * bit expression below is fully parenthesised. Values are detoasted once (`|| ''`): get_byte on
 * a TOASTed argument fetches or decompresses the whole value on every call (166 ms a histogram).
 *
 * Status codes: 0 missing (PFDEBUG), 1 done, 2 WRONGTYPE, 6 not a HyperLogLog string,
 * 7 corrupted (INVALIDOBJ).
 */
import { live } from '../kv-row';

const kDense = 12304;

/** one byte as bytea */
const byte = (x: string) => `set_byte('\\x00'::bytea, 0, ${x})`;
const zeroOp = (len: string) => byte(`(${len}) - 1`);
const xzeroOp = (len: string) => `(${byte(`(((${len}) - 1) >> 8) | 64`)} || ${byte(`((${len}) - 1) & 255`)})`;
const valOp = (val: string, len: string) => byte(`((((${val}) - 1) << 2) | ((${len}) - 1)) | 128`);
const zeros = (len: string) => `CASE WHEN (${len}) > 64 THEN ${xzeroOp(len)} ELSE ${zeroOp(len)} END`;

export function hyperloglogFunctions(s: string): string[] {
  return [
    // isHLLObjectOrReply on a string value, from its first 16 bytes and its length
    `CREATE OR REPLACE FUNCTION ${s}.hll_ok(hdr bytea, len int4) RETURNS bool LANGUAGE sql IMMUTABLE AS $f$
       SELECT CASE WHEN len < 16 THEN false
         ELSE substring(hdr FROM 1 FOR 4) = '\\x48594c4c'::bytea AND get_byte(hdr, 4) <= 1
              AND (get_byte(hdr, 4) = 1 OR len = ${kDense}) END $f$`,
    `CREATE OR REPLACE FUNCTION ${s}.hll_ok(v bytea) RETURNS bool LANGUAGE sql IMMUTABLE AS $f$
       SELECT ${s}.hll_ok(substring(v FROM 1 FOR 16), length(v)) $f$`,
    // a new HLL: sparse, one XZERO of 16384 registers (createHLLObject)
    `CREATE OR REPLACE FUNCTION ${s}.hll_new() RETURNS bytea LANGUAGE sql IMMUTABLE AS $f$
       SELECT '\\x48594c4c0100000000000000000000007fff'::bytea $f$`,
    // registers (1-based array) of either encoding; NULL when a sparse value does not cover 16384
    `CREATE OR REPLACE FUNCTION ${s}.hll_registers(p_v bytea) RETURNS int4[] LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE v bytea := p_v || ''::bytea; n int4 := length(p_v); r int4[] := array_fill(0, ARRAY[16384]);
       g int4; w int4; p int4 := 16; i int4 := 0; b int4; run int4; val int4;
     BEGIN
       IF get_byte(v, 4) = 0 THEN
         FOR g IN 0 .. 4095 LOOP
           w := get_byte(v, 16 + g * 3) | (get_byte(v, 17 + g * 3) << 8) | (get_byte(v, 18 + g * 3) << 16);
           r[g * 4 + 1] := w & 63; r[g * 4 + 2] := (w >> 6) & 63; r[g * 4 + 3] := (w >> 12) & 63; r[g * 4 + 4] := w >> 18;
         END LOOP;
         RETURN r;
       END IF;
       -- a run past the last register makes the value corrupted (Redis's fix of CVE-2025-32023)
       WHILE p < n LOOP
         b := get_byte(v, p);
         IF (b & 192) = 0 THEN run := (b & 63) + 1; val := 0;
         ELSIF (b & 192) = 64 THEN run := (((b & 63) << 8) | (CASE WHEN p + 1 < n THEN get_byte(v, p + 1) ELSE 0 END)) + 1; val := 0;
         ELSE run := (b & 3) + 1; val := ((b >> 2) & 31) + 1;
         END IF;
         IF run + i > 16384 THEN RETURN NULL; END IF;
         IF val > 0 THEN FOR g IN i + 1 .. i + run LOOP r[g] := val; END LOOP; END IF;
         i := i + run; p := p + CASE WHEN (b & 192) = 64 THEN 2 ELSE 1 END;
       END LOOP;
       RETURN CASE WHEN i = 16384 THEN r END;
     END $f$`,
    // a dense value: the given header (magic, unused bytes, cached cardinality) with encoding 0
    `CREATE OR REPLACE FUNCTION ${s}.hll_pack(p_header bytea, r int4[]) RETURNS bytea LANGUAGE sql IMMUTABLE AS $f$
       SELECT set_byte(substring(p_header FROM 1 FOR 16), 4, 0) || decode(string_agg(
           lpad(to_hex(w & 255), 2, '0') || lpad(to_hex((w >> 8) & 255), 2, '0') || lpad(to_hex(w >> 16), 2, '0'), '' ORDER BY g), 'hex')
         FROM (SELECT g, r[g * 4 + 1] | (r[g * 4 + 2] << 6) | (r[g * 4 + 3] << 12) | (r[g * 4 + 4] << 18) AS w
               FROM generate_series(0, 4095) AS g) q $f$`,
    // hllSparseToDense: NULL when the sparse value is corrupted
    `CREATE OR REPLACE FUNCTION ${s}.hll_to_dense(v bytea) RETURNS bytea LANGUAGE sql IMMUTABLE AS $f$
       SELECT ${s}.hll_pack(v, r) FROM ${s}.hll_registers(v) AS r WHERE r IS NOT NULL $f$`,
    // hllCount: the estimate from the register histogram (h[1] = registers at 0 … h[52] at 51)
    `CREATE OR REPLACE FUNCTION ${s}.hll_estimate(h int4[]) RETURNS int8 LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE m float8 := 16384; z float8; x float8; y float8; zp float8; j int4; e float8; t float8;
     BEGIN
       -- tau((m - h[51]) / m)
       x := (m - h[52]) / m;
       IF x = 0 OR x = 1 THEN z := 0;
       ELSE
         y := 1; z := 1 - x;
         LOOP
           x := sqrt(x); zp := z; y := y * '0.5'::float8;
           z := z - power(1 - x, 2) * y;
           EXIT WHEN zp = z;
         END LOOP;
         z := z / 3;
       END IF;
       z := m * z;
       FOR j IN REVERSE 50 .. 1 LOOP z := (z + h[j + 1]) * '0.5'::float8; END LOOP;
       -- + m · sigma(h[0] / m); sigma(1) is infinite: the estimate is 0
       x := h[1] / m;
       IF x = 1 THEN RETURN 0; END IF;
       y := 1; t := x;
       LOOP
         x := x * x; zp := t; t := t + x * y; y := y + y;
         EXIT WHEN zp = t;
       END LOOP;
       z := z + m * t;
       e := '0.721347520444481703680'::float8 * m * m / z;
       t := trunc(e);
       IF e - t >= '0.5'::float8 THEN t := t + 1; END IF;
       RETURN t::int8;
     END $f$`,
    // the register histogram of a value (64 slots); NULL when a sparse value is corrupted
    `CREATE OR REPLACE FUNCTION ${s}.hll_histogram(p_v bytea) RETURNS int4[] LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE v bytea := p_v || ''::bytea; n int4 := length(p_v); h int4[] := array_fill(0, ARRAY[64]);
       g int4; w int4; x int4; p int4 := 16; i int4 := 0; b int4; run int4;
     BEGIN
       IF get_byte(v, 4) = 0 THEN
         FOR g IN 0 .. 4095 LOOP
           w := get_byte(v, 16 + g * 3) | (get_byte(v, 17 + g * 3) << 8) | (get_byte(v, 18 + g * 3) << 16);
           x := (w & 63) + 1; h[x] := h[x] + 1;
           x := ((w >> 6) & 63) + 1; h[x] := h[x] + 1;
           x := ((w >> 12) & 63) + 1; h[x] := h[x] + 1;
           x := (w >> 18) + 1; h[x] := h[x] + 1;
         END LOOP;
         RETURN h;
       END IF;
       WHILE p < n LOOP
         b := get_byte(v, p);
         IF (b & 192) = 0 THEN run := (b & 63) + 1; h[1] := h[1] + run; p := p + 1;
         ELSIF (b & 192) = 64 THEN
           run := (((b & 63) << 8) | (CASE WHEN p + 1 < n THEN get_byte(v, p + 1) ELSE 0 END)) + 1; h[1] := h[1] + run; p := p + 2;
         ELSE
           run := (b & 3) + 1; x := ((b >> 2) & 31) + 2; h[x] := h[x] + run; p := p + 1;
         END IF;
         i := i + run;
       END LOOP;
       RETURN CASE WHEN i = 16384 THEN h END;
     END $f$`,
    hllApply(s),
    // PFADD key element…: p_ops = register << 6 | count per element, in argument order; p_fresh,
    // when the worker computed it (./fresh.ts), is the value the ops give a new key
    `CREATE OR REPLACE FUNCTION ${s}.hll_add(p_db int2, p_key bytea, p_ops int4[], p_max int8, p_fresh bytea, p_now int8,
       OUT status int2, OUT n int4) LANGUAGE plpgsql AS $f$
     DECLARE r record; a record; live bool; created bool := false; v bytea;
     BEGIN
       LOOP
         SELECT k.type, k.value, k.expires_at INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key FOR UPDATE;
         live := FOUND AND ${live('r')};
         IF live THEN
           IF r.type <> 0 THEN status := 2; RETURN; END IF;
           IF NOT ${s}.hll_ok(r.value) THEN status := 6; RETURN; END IF;
           v := r.value;
           EXIT;
         END IF;
         IF FOUND THEN DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key; END IF;
         INSERT INTO ${s}.kv (db, key, type, value, expires_at, version)
           VALUES (p_db, p_key, 0, coalesce(p_fresh, ${s}.hll_new()), NULL, txid_current())
           ON CONFLICT (db, key) DO NOTHING;
         IF FOUND AND p_fresh IS NOT NULL THEN status := 1; n := 1; RETURN; END IF;
         IF FOUND THEN created := true; v := ${s}.hll_new(); EXIT; END IF;
       END LOOP;
       SELECT * INTO a FROM ${s}.hll_apply(v, p_ops, p_max, true);
       IF a.bad THEN
         -- Redis leaves the registers it set before the corrupted spot
         IF a.v <> v THEN UPDATE ${s}.kv SET value = a.v, version = txid_current() WHERE db = p_db AND key = p_key; END IF;
         status := 7; RETURN;
       END IF;
       status := 1; n := CASE WHEN created OR a.updated THEN 1 ELSE 0 END;
       IF n = 1 THEN
         UPDATE ${s}.kv SET value = set_byte(a.v, 15, get_byte(a.v, 15) | 128), version = txid_current()
           WHERE db = p_db AND key = p_key;
       END IF;
     END $f$`,
    // PFCOUNT key: the cached cardinality, or the estimate, then cached (a write: version changes)
    `CREATE OR REPLACE FUNCTION ${s}.hll_count(p_db int2, p_key bytea, p_now int8, OUT status int2, OUT card int8)
     LANGUAGE plpgsql AS $f$
     DECLARE r record; h int4[]; v bytea; i int4;
     BEGIN
       status := 1; card := 0;
       SELECT k.type, length(k.value) AS len, substring(k.value FROM 1 FOR 16) AS hdr INTO r FROM ${s}.kv k
         WHERE k.db = p_db AND k.key = p_key AND ${live('k')};
       IF NOT FOUND THEN RETURN; END IF;
       IF r.type <> 0 THEN status := 2; RETURN; END IF;
       IF NOT ${s}.hll_ok(r.hdr, r.len) THEN status := 6; RETURN; END IF;
       IF (get_byte(r.hdr, 15) & 128) = 0 THEN
         FOR i IN REVERSE 15 .. 8 LOOP card := (card << 8) | get_byte(r.hdr, i); END LOOP;
         RETURN;
       END IF;
       SELECT k.type, k.value, k.expires_at INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key FOR UPDATE;
       IF NOT FOUND OR NOT ${live('r')} THEN RETURN; END IF;
       IF r.type <> 0 THEN status := 2; RETURN; END IF;
       IF NOT ${s}.hll_ok(r.value) THEN status := 6; RETURN; END IF;
       v := r.value || ''::bytea;
       IF (get_byte(v, 15) & 128) = 0 THEN
         FOR i IN REVERSE 15 .. 8 LOOP card := (card << 8) | get_byte(v, i); END LOOP;
         RETURN;
       END IF;
       h := ${s}.hll_histogram(v);
       IF h IS NULL THEN status := 7; RETURN; END IF;
       card := ${s}.hll_estimate(h);
       FOR i IN 0 .. 7 LOOP v := set_byte(v, 8 + i, ((card >> (8 * i)) & 255)::int4); END LOOP;
       UPDATE ${s}.kv SET value = v, version = txid_current() WHERE db = p_db AND key = p_key;
       -- counted and the cached cardinality rewritten (the value changed: Redis's signalModifiedKey)
       status := 8;
     END $f$`,
    hllMerge(s),
    // PFDEBUG GETREG / DECODE / ENCODING / TODENSE: p_dense converts a sparse value (GETREG, TODENSE)
    `CREATE OR REPLACE FUNCTION ${s}.hll_debug(p_db int2, p_key bytea, p_dense bool, p_now int8,
       OUT status int2, OUT converted bool, OUT value bytea) LANGUAGE plpgsql AS $f$
     DECLARE r record; d bytea;
     BEGIN
       converted := false;
       SELECT k.type, k.value INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key
         AND ${live('k')} FOR UPDATE;
       IF NOT FOUND THEN status := 0; RETURN; END IF;
       IF r.type <> 0 THEN status := 2; RETURN; END IF;
       IF NOT ${s}.hll_ok(r.value) THEN status := 6; RETURN; END IF;
       status := 1; value := r.value;
       IF NOT p_dense OR get_byte(r.value, 4) = 0 THEN RETURN; END IF;
       d := ${s}.hll_to_dense(r.value);
       IF d IS NULL THEN status := 7; RETURN; END IF;
       UPDATE ${s}.kv SET value = d, version = txid_current() WHERE db = p_db AND key = p_key;
       value := d; converted := true;
     END $f$`,
  ];
}

/**
 * hll_apply(v, ops, max, stop): hllAdd for each (register, count) of ops, in order, on a valid
 * value. `updated` = a register grew; `bad` = a sparse value turned out corrupted (with stop,
 * the rest is not applied: PFADD answers INVALIDOBJ; without, PFMERGE goes on as Redis does).
 *
 * Finding a register's opcode scans from the start; consecutive registers (PFMERGE's increasing
 * order) resume at the opcode the last change started merging from (`h*`): nothing before it
 * moved. `prev`, the opcode before the target, must be known there (-1 = none, -2 = unknown:
 * then the scan starts over).
 */
function hllApply(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.hll_apply(p_v bytea, p_ops int4[], p_max int8, p_stop bool,
       OUT v bytea, OUT updated bool, OUT bad bool) LANGUAGE plpgsql IMMUTABLE AS $f$
     DECLARE n int4; op int4; idx int4; cnt int4; b int4; b2 int4; kind int4; span int4; oplen int4;
       p int4; first int4; prev int4; prev_first int4; pprev int4; pprev_first int4;
       hp int4 := 16; hfirst int4 := 0; hprev int4 := -1; hprev_first int4 := 0;
       last int4; seq bytea; cur int4; delta int4; oldlen int4; old int4; pos int4; fb int4;
       m int4; scan int4; promote bool; changed bool; d bytea;
     BEGIN
       v := p_v || ''::bytea; n := length(v); updated := false; bad := false;
       FOREACH op IN ARRAY p_ops LOOP
         idx := op >> 6; cnt := op & 63;
         IF get_byte(v, 4) = 1 THEN
           promote := cnt > 32; changed := false;
           IF NOT promote THEN
             -- find the opcode covering idx
             IF idx >= hfirst THEN p := hp; first := hfirst; prev := hprev; prev_first := hprev_first;
             ELSE p := 16; first := 0; prev := -1; prev_first := 0; END IF;
             LOOP
               pprev := -2; pprev_first := 0; span := 0;
               WHILE p < n LOOP
                 b := get_byte(v, p);
                 IF (b & 192) = 0 THEN span := (b & 63) + 1; oplen := 1;
                 ELSIF (b & 128) <> 0 THEN span := (b & 3) + 1; oplen := 1;
                 ELSE span := (((b & 63) << 8) | (CASE WHEN p + 1 < n THEN get_byte(v, p + 1) ELSE 0 END)) + 1; oplen := 2;
                 END IF;
                 EXIT WHEN idx <= first + span - 1;
                 pprev := prev; pprev_first := prev_first; prev := p; prev_first := first;
                 p := p + oplen; first := first + span;
               END LOOP;
               EXIT WHEN prev <> -2 OR p >= n;
               p := 16; first := 0; prev := -1; prev_first := 0;
             END LOOP;
             IF span = 0 OR p >= n THEN
               bad := true;
               IF p_stop THEN RETURN; END IF;
               CONTINUE;
             END IF;
             kind := CASE WHEN (b & 192) = 0 THEN 0 WHEN (b & 128) <> 0 THEN 2 ELSE 1 END;
             IF kind = 2 AND ((b >> 2) & 31) + 1 >= cnt THEN CONTINUE; END IF; -- already as high
             IF span = 1 AND kind <> 1 THEN
               v := set_byte(v, p, ((((cnt - 1) << 2) | 0) | 128));
               changed := true;
             ELSE
               -- split the opcode around idx: up to ZERO/XZERO–VAL–ZERO/XZERO (5 bytes)
               last := first + span - 1; seq := ''::bytea;
               IF kind <> 2 THEN
                 IF idx <> first THEN seq := seq || ${zeros('idx - first')}; END IF;
                 seq := seq || ${valOp('cnt', '1')};
                 IF idx <> last THEN seq := seq || ${zeros('last - idx')}; END IF;
               ELSE
                 cur := ((b >> 2) & 31) + 1;
                 IF idx <> first THEN seq := seq || ${valOp('cur', 'idx - first')}; END IF;
                 seq := seq || ${valOp('cnt', '1')};
                 IF idx <> last THEN seq := seq || ${valOp('cur', 'last - idx')}; END IF;
               END IF;
               oldlen := CASE WHEN kind = 1 THEN 2 ELSE 1 END;
               delta := length(seq) - oldlen;
               IF delta > 0 AND n + delta > p_max THEN promote := true;
               ELSE
                 -- (an XZERO cut short at the end: Redis's length arithmetic drops the last byte)
                 v := substring(overlay(v PLACING seq FROM p + 1 FOR oldlen) FROM 1 FOR n + delta);
                 n := n + delta; changed := true;
               END IF;
             END IF;
             IF changed THEN
               -- merge runs of equal VAL opcodes, up to 5 opcodes from the one before the change
               m := CASE WHEN prev >= 0 THEN prev ELSE 16 END; scan := 5;
               WHILE m < n AND scan > 0 LOOP
                 scan := scan - 1;
                 b := get_byte(v, m);
                 IF (b & 192) = 64 THEN m := m + 2; CONTINUE; END IF;
                 IF (b & 192) = 0 THEN m := m + 1; CONTINUE; END IF;
                 IF m + 1 < n THEN
                   b2 := get_byte(v, m + 1);
                   IF (b2 & 128) <> 0 AND ((b >> 2) & 31) = ((b2 >> 2) & 31) AND (b & 3) + (b2 & 3) + 2 <= 4 THEN
                     v := overlay(v PLACING ${byte('(b & 252) | ((b & 3) + (b2 & 3) + 1)')} FROM m + 1 FOR 2);
                     n := n - 1;
                     CONTINUE;
                   END IF;
                 END IF;
                 m := m + 1;
               END LOOP;
               v := set_byte(v, 15, get_byte(v, 15) | 128);
               updated := true;
               IF prev >= 0 THEN hp := prev; hfirst := prev_first; hprev := pprev; hprev_first := pprev_first;
               ELSE hp := 16; hfirst := 0; hprev := -1; hprev_first := 0; END IF;
               CONTINUE;
             END IF;
           END IF;
           -- promote to dense, then set the register there
           d := ${s}.hll_to_dense(v);
           IF d IS NULL THEN
             bad := true;
             IF p_stop THEN RETURN; END IF;
             CONTINUE;
           END IF;
           v := d; n := length(v);
         END IF;
         IF get_byte(v, 4) <> 0 THEN bad := true; RETURN; END IF;
         pos := 16 + ((idx * 6) >> 3); fb := (idx * 6) & 7;
         b := get_byte(v, pos); b2 := CASE WHEN pos + 1 < n THEN get_byte(v, pos + 1) ELSE 0 END;
         old := ((b >> fb) | (b2 << (8 - fb))) & 63;
         IF cnt > old THEN
           v := set_byte(v, pos, (b & (~(63 << fb)) & 255) | ((cnt << fb) & 255));
           IF fb > 2 THEN v := set_byte(v, pos + 1, (b2 & (~(63 >> (8 - fb)))) | (cnt >> (8 - fb))); END IF;
           updated := true;
         END IF;
       END LOOP;
     END $f$`;
}

/**
 * PFMERGE dst src…: p_keys = dst then the sources (Redis reads dst as a source too). Registers
 * are maxed in key order (the first bad key answers); dst becomes dense when any input is dense,
 * else takes the registers one by one in sparse form (hll_apply), as pfmergeCommand does.
 */
function hllMerge(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.hll_merge(p_db int2, p_keys bytea[], p_max int8, p_now int8,
       OUT status int2) LANGUAGE plpgsql AS $f$
     DECLARE r record; a record; mk bytea; regs int4[]; mx int4[]; i int4; dense bool;
       dst bytea := p_keys[1]; v bytea; found_ bool; live bool; ops int4[];
     BEGIN
       LOOP
         -- dst first: concurrent writers of it wait here, then read what this merge wrote
         SELECT k.type, k.value, k.expires_at INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = dst FOR UPDATE;
         found_ := FOUND; live := FOUND AND ${live('r')};
         v := CASE WHEN live THEN r.value ELSE ${s}.hll_new() END;
         mx := array_fill(0, ARRAY[16384]); dense := false;
         FOREACH mk IN ARRAY p_keys LOOP
           SELECT k.type, k.value INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = mk
             AND ${live('k')};
           CONTINUE WHEN NOT FOUND;
           IF r.type <> 0 THEN status := 2; RETURN; END IF;
           IF NOT ${s}.hll_ok(r.value) THEN status := 6; RETURN; END IF;
           IF get_byte(r.value, 4) = 0 THEN dense := true; END IF;
           regs := ${s}.hll_registers(r.value);
           IF regs IS NULL THEN status := 7; RETURN; END IF;
           FOR i IN 1 .. 16384 LOOP IF regs[i] > mx[i] THEN mx[i] := regs[i]; END IF; END LOOP;
         END LOOP;
         IF dense THEN
           -- every input, dst included, is in mx: the dense result is mx itself
           v := ${s}.hll_pack(v, mx);
         ELSE
           SELECT array_agg(((g - 1) << 6) | mx[g] ORDER BY g) INTO ops FROM generate_series(1, 16384) AS g WHERE mx[g] > 0;
           SELECT * INTO a FROM ${s}.hll_apply(v, coalesce(ops, '{}'), p_max, false);
           v := a.v;
         END IF;
         v := set_byte(v, 15, get_byte(v, 15) | 128);
         status := 1;
         IF live THEN
           UPDATE ${s}.kv SET value = v, version = txid_current() WHERE db = p_db AND key = dst;
           RETURN;
         END IF;
         -- an expired key or a WATCH mark gives way; a key created meanwhile: merge again
         IF found_ THEN DELETE FROM ${s}.kv WHERE db = p_db AND key = dst; END IF;
         INSERT INTO ${s}.kv (db, key, type, value, expires_at, version) VALUES (p_db, dst, 0, v, NULL, txid_current())
           ON CONFLICT (db, key) DO NOTHING;
         IF FOUND THEN RETURN; END IF;
       END LOOP;
     END $f$`;
}
