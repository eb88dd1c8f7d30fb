/**
 * Consumer-group functions: XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM, XINFO's
 * group parts. Ids shifted as in ./functions.ts. Status 5 = NOGROUP (no key or no such group),
 * 6 = the key is missing (XGROUP without MKSTREAM). Times (delivered, seen) are plain Unix ms.
 */
import { createKey, lockKey } from '../collection/functions';
import { live } from '../kv-row';
import { kStreamType } from './sql';

const Z = `'-9223372036854775808'::int8`;
const kT = kStreamType;
const kXCols = ', k.x_last_ms, k.x_last_seq, k.x_added, k.x_maxdel_ms, k.x_maxdel_seq';
/** the group row g of p_grp; `missing` runs when there is none */
const group = (s: string, missing: string, lock = 'FOR UPDATE') => `SELECT * INTO g FROM ${s}.stream_groups x
         WHERE x.db = p_db AND x.key = p_key AND x.grp = p_grp ${lock};
       IF NOT FOUND THEN ${missing} END IF;`;
/** the consumer exists, seen now (Redis's lookup with refresh, or creation) */
/**
 * made (a bool of the caller): the consumer is new (the keyspace event xgroup-createconsumer).
 * Looked up first (the stream's kv row is locked, so nobody adds it meanwhile): `xmax = 0` on
 * the upsert said new for a consumer XREADGROUP had made earlier (XAUTOCLAIM after it).
 */
const touchConsumer = (s: string) => `made := NOT EXISTS (SELECT 1 FROM ${s}.stream_consumers c WHERE c.db = p_db AND c.key = p_key
           AND c.grp = p_grp AND c.consumer = p_consumer);
         INSERT INTO ${s}.stream_consumers AS c (db, key, grp, consumer, seen)
         VALUES (p_db, p_key, p_grp, p_consumer, p_now) ON CONFLICT (db, key, grp, consumer) DO UPDATE SET seen = p_now`;
/** XCLAIM / XAUTOCLAIM: a row of status 8 tells the consumer was made (their maps skip it; 7 is XAUTOCLAIM's cursor) */
const kMadeRow = 'IF made THEN RETURN QUERY SELECT 8::int2, NULL::int8, NULL::int8, NULL::bytea[]; END IF;';
/** t := 'wrong' (another type), 'nogroup', 'ok', or NULL (no key): the read-only commands' checks */
const groupState = (s: string) => `SELECT CASE WHEN k.type <> ${kT} THEN 'wrong' WHEN x.grp IS NULL THEN 'nogroup' ELSE 'ok' END INTO t
         FROM ${s}.kv k LEFT JOIN ${s}.stream_groups x ON x.db = k.db AND x.key = k.key AND x.grp = p_grp
         WHERE k.db = p_db AND k.key = p_key AND ${live('k')};`;
const entryExists = (s: string, ms: string, seq: string) =>
  `EXISTS (SELECT 1 FROM ${s}.stream_entries e WHERE e.db = p_db AND e.key = p_key AND e.ms = ${ms} AND e.seq = ${seq})`;

/** a blocked XREADGROUP answered (served or an error): its waiter rows go in the same transaction */
const kLeave = (s: string) => `IF p_wseq IS NOT NULL THEN DELETE FROM ${s}.blocked_waiters w WHERE w.seq = p_wseq; END IF;`;

export function streamGroupFunctions(s: string): string[] {
  return [
    // XGROUP CREATE: p_ms NULL = '$'; p_er NULL = no ENTRIESREAD (-1). status 3 BUSYGROUP, 6 no key
    `CREATE OR REPLACE FUNCTION ${s}.x_group_create(p_db int2, p_key bytea, p_grp bytea, p_ms int8, p_seq int8,
       p_mk bool, p_er int8, p_now int8, OUT status int2, OUT created bool) LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool;
     BEGIN
       created := false;
       LOOP
         ${lockKey(s, kT, 'p_key', 'r', 'live', 'status := 2; RETURN;', kXCols)}
         IF live THEN EXIT; END IF;
         IF NOT p_mk THEN status := 6; RETURN; END IF;
         ${createKey(s, kT, '0')}
         UPDATE ${s}.kv SET x_last_ms = ${Z}, x_last_seq = ${Z}, x_added = 0, x_maxdel_ms = ${Z}, x_maxdel_seq = ${Z}
           WHERE db = p_db AND key = p_key;
         created := true;
         SELECT ${Z} AS x_last_ms, ${Z} AS x_last_seq INTO r;
         EXIT;
       END LOOP;
       INSERT INTO ${s}.stream_groups (db, key, grp, last_ms, last_seq, entries_read)
         VALUES (p_db, p_key, p_grp, coalesce(p_ms, r.x_last_ms), coalesce(p_seq, r.x_last_seq), nullif(p_er, -1))
         ON CONFLICT DO NOTHING;
       status := CASE WHEN FOUND THEN 1 ELSE 3 END;
       IF status = 1 AND NOT created THEN
         UPDATE ${s}.kv SET version = txid_current() WHERE db = p_db AND key = p_key;
       END IF;
     END $f$`,
    // XGROUP SETID / DESTROY / CREATECONSUMER / DELCONSUMER: p_op 1 setid (p_ms NULL = '$'),
    // 2 destroy, 3 createconsumer, 4 delconsumer. n: DESTROY 1/0, CREATECONSUMER 1/0,
    // DELCONSUMER the consumer's pending entries (-1: there was no such consumer)
    `CREATE OR REPLACE FUNCTION ${s}.x_group_op(p_db int2, p_key bytea, p_grp bytea, p_op int2, p_ms int8, p_seq int8,
       p_er int8, p_consumer bytea, p_now int8, OUT status int2, OUT n int8) LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; g record;
     BEGIN
       ${lockKey(s, kT, 'p_key', 'r', 'live', 'status := 2; RETURN;', kXCols)}
       IF NOT live THEN status := 6; RETURN; END IF;
       status := 1; n := 0;
       ${group(s, 'IF p_op = 2 THEN RETURN; END IF; status := 5; RETURN;')}
       IF p_op = 1 THEN
         UPDATE ${s}.stream_groups x SET last_ms = coalesce(p_ms, r.x_last_ms), last_seq = coalesce(p_seq, r.x_last_seq),
             entries_read = nullif(p_er, -1)
           WHERE x.db = p_db AND x.key = p_key AND x.grp = p_grp;
       ELSIF p_op = 2 THEN
         DELETE FROM ${s}.stream_pel p WHERE p.db = p_db AND p.key = p_key AND p.grp = p_grp;
         DELETE FROM ${s}.stream_consumers c WHERE c.db = p_db AND c.key = p_key AND c.grp = p_grp;
         DELETE FROM ${s}.stream_groups x WHERE x.db = p_db AND x.key = p_key AND x.grp = p_grp;
         n := 1;
       ELSIF p_op = 3 THEN
         INSERT INTO ${s}.stream_consumers (db, key, grp, consumer, seen) VALUES (p_db, p_key, p_grp, p_consumer, p_now)
           ON CONFLICT DO NOTHING;
         n := CASE WHEN FOUND THEN 1 ELSE 0 END;
       ELSE
         DELETE FROM ${s}.stream_consumers c WHERE c.db = p_db AND c.key = p_key AND c.grp = p_grp AND c.consumer = p_consumer;
         IF NOT FOUND THEN n := -1; RETURN; END IF;
         DELETE FROM ${s}.stream_pel p WHERE p.db = p_db AND p.key = p_key AND p.grp = p_grp AND p.consumer = p_consumer;
         GET DIAGNOSTICS n = ROW_COUNT;
       END IF;
       IF n <> 0 OR p_op IN (1, 4) THEN
         UPDATE ${s}.kv SET version = txid_current() WHERE db = p_db AND key = p_key;
       END IF;
     END $f$`,
    // The old signature, before the blocking queue's parameters (schema v11)
    `DROP FUNCTION IF EXISTS ${s}.x_readgroup(int2, bytea[], int8[], int8[], bytea, bytea, int8, bool, int4, int8)`,
    // XREADGROUP. Keys in argument order; p_ms[j] NULL = '>'. The first key that is not a stream
    // (status 2) or has no such group (5) answers alone; p_check > 0 only checks keys 1..p_check
    // (an argument error further on: Redis checks each key before parsing its id). Rows per served
    // key: a marker (ms NULL), then its entries; fv NULL = an id in the history whose entry is gone.
    // p_block (BLOCK with '>', docs/streams.md#block): readers of one group are served in the order
    // they blocked, as the pops are (blocking/functions.ts): a key's new entries go to waiter
    // p_wseq (NULL: a call not yet blocked) only when no live waiter of the group is ahead of it
    // on that key; nothing served, a first call registers: row (0, seq = its number); served, a
    // waiter's rows go, and row (9, i) tells key i has entries left for the next waiter.
    `CREATE OR REPLACE FUNCTION ${s}.x_readgroup(p_db int2, p_keys bytea[], p_ms int8[], p_seq int8[], p_grp bytea,
       p_consumer bytea, p_count int8, p_noack bool, p_check int4, p_now int8, p_wseq int8, p_block bool)
     RETURNS TABLE (status int2, i int4, ms int8, seq int8, fv bytea[]) LANGUAGE plpgsql AS $f$
     #variable_conflict use_column
     DECLARE j int; r record; live bool; g record; e record; p_key bytea; er int8; fms int8; fseq int8; lms int8; lseq int8; made bool;
       n int := cardinality(p_keys); served bool := false;
     BEGIN
       FOR j IN 1 .. CASE WHEN p_check > 0 THEN p_check ELSE n END LOOP
         p_key := p_keys[j];
         ${lockKey(s, kT, 'p_key', 'r', 'live', `${kLeave(s)} RETURN QUERY SELECT 2::int2, j, NULL::int8, NULL::int8, NULL::bytea[]; RETURN;`)}
         -- not found: once more. A key deleted and made again in one transaction while this
         -- waited for its row lock (RESTORE … REPLACE: DELETE, then INSERT) is not found by this
         -- statement (the old row is gone, the new one is not in its snapshot) but by the next,
         -- as Redis sees the key after the command; a woken XREADGROUP answered UNBLOCKED
         IF NOT live THEN
           ${lockKey(s, kT, 'p_key', 'r', 'live', `${kLeave(s)} RETURN QUERY SELECT 2::int2, j, NULL::int8, NULL::int8, NULL::bytea[]; RETURN;`)}
         END IF;
         IF live THEN
           PERFORM 1 FROM ${s}.stream_groups x WHERE x.db = p_db AND x.key = p_key AND x.grp = p_grp;
         END IF;
         -- 6: no such key, 5: no such group (one NOGROUP error, but a woken XREADGROUP tells them apart)
         IF NOT live OR NOT FOUND THEN
           ${kLeave(s)}
           RETURN QUERY SELECT CASE WHEN live THEN 5::int2 ELSE 6::int2 END, j, NULL::int8, NULL::int8, NULL::bytea[]; RETURN;
         END IF;
       END LOOP;
       IF p_check > 0 THEN RETURN; END IF;
       FOR j IN 1 .. n LOOP
         p_key := p_keys[j];
         SELECT k.card, k.x_last_ms, k.x_last_seq, k.x_added, k.x_maxdel_ms, k.x_maxdel_seq INTO r FROM ${s}.kv k
           WHERE k.db = p_db AND k.key = p_key;
         ${group(s, 'CONTINUE;')}
         IF p_ms[j] IS NOT NULL THEN
           ${touchConsumer(s)};
           -- the consumer's own history after the id: entries still pending, delivered again; the
           -- marker's seq is 1 when the consumer was made
           RETURN QUERY SELECT 1::int2, j, NULL::int8, CASE WHEN made THEN 1::int8 END, NULL::bytea[];
           RETURN QUERY WITH h AS (
               SELECT p.ms, p.seq FROM ${s}.stream_pel p WHERE p.db = p_db AND p.key = p_key AND p.grp = p_grp
                 AND p.consumer = p_consumer AND (p.ms, p.seq) > (p_ms[j], p_seq[j]) ORDER BY p.ms, p.seq LIMIT p_count),
             u AS (UPDATE ${s}.stream_pel p SET delivered = p_now, deliveries = p.deliveries + 1 FROM h
               WHERE p.db = p_db AND p.key = p_key AND p.grp = p_grp AND p.ms = h.ms AND p.seq = h.seq
                 AND ${entryExists(s, 'h.ms', 'h.seq')})
             SELECT 1::int2, j, h.ms, h.seq, (SELECT e.fv FROM ${s}.stream_entries e WHERE e.db = p_db AND e.key = p_key
                 AND e.ms = h.ms AND e.seq = h.seq) FROM h ORDER BY h.ms, h.seq;
           CONTINUE;
         END IF;
         -- new entries: served only when the stream holds one after the group's last id
         IF NOT EXISTS (SELECT 1 FROM ${s}.stream_entries x WHERE x.db = p_db AND x.key = p_key
             AND (x.ms, x.seq) > (g.last_ms, g.last_seq)) THEN CONTINUE; END IF;
         IF p_block AND ${s}.b_ahead_in(p_db, p_key, p_grp, p_wseq) THEN CONTINUE; END IF;
         served := true;
         -- the consumer is created (or its seen-time refreshed) only by a read that serves it
         ${touchConsumer(s)};
         RETURN QUERY SELECT 1::int2, j, NULL::int8, CASE WHEN made THEN 1::int8 END, NULL::bytea[];
         SELECT f.ms, f.seq INTO fms, fseq FROM ${s}.x_first(p_db, p_key) f;
         er := g.entries_read; lms := g.last_ms; lseq := g.last_seq;
         FOR e IN SELECT x.ms, x.seq, x.fv FROM ${s}.stream_entries x WHERE x.db = p_db AND x.key = p_key
             AND (x.ms, x.seq) > (g.last_ms, g.last_seq) ORDER BY x.ms, x.seq LIMIT p_count LOOP
           IF er IS NOT NULL AND NOT ${s}.x_tombstones(r.card, fms, fseq, r.x_maxdel_ms, r.x_maxdel_seq, e.ms, e.seq) THEN
             er := er + 1;
           ELSIF r.x_added > 0 THEN
             er := ${s}.x_estimate(r.x_added, r.card, r.x_last_ms, r.x_last_seq, fms, fseq, r.x_maxdel_ms, r.x_maxdel_seq, e.ms, e.seq);
           END IF;
           lms := e.ms; lseq := e.seq;
           IF NOT p_noack THEN
             INSERT INTO ${s}.stream_pel AS p (db, key, grp, ms, seq, consumer, delivered, deliveries)
               VALUES (p_db, p_key, p_grp, e.ms, e.seq, p_consumer, p_now, 1)
               ON CONFLICT (db, key, grp, ms, seq) DO UPDATE SET consumer = p_consumer, delivered = p_now, deliveries = 1;
           END IF;
           RETURN QUERY SELECT 1::int2, j, e.ms, e.seq, e.fv;
         END LOOP;
         UPDATE ${s}.stream_groups x SET last_ms = lms, last_seq = lseq, entries_read = er
           WHERE x.db = p_db AND x.key = p_key AND x.grp = p_grp;
         IF p_block AND p_count IS NOT NULL AND EXISTS (SELECT 1 FROM ${s}.stream_entries x WHERE x.db = p_db AND x.key = p_key
             AND (x.ms, x.seq) > (lms, lseq)) THEN
           RETURN QUERY SELECT 9::int2, j, NULL::int8, NULL::int8, NULL::bytea[];
         END IF;
       END LOOP;
       IF NOT p_block THEN RETURN; END IF;
       IF served THEN ${kLeave(s)}
       ELSIF p_wseq IS NULL THEN
         RETURN QUERY SELECT 0::int2, NULL::int4, NULL::int8, ${s}.b_register(p_db, p_keys, p_grp), NULL::bytea[];
       END IF;
     END $f$`,
    // XACK: n = pending entries removed; no key or group: 0
    `CREATE OR REPLACE FUNCTION ${s}.x_ack(p_db int2, p_key bytea, p_grp bytea, p_ms int8[], p_seq int8[], p_now int8,
       OUT status int2, OUT n int8) LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool;
     BEGIN
       ${lockKey(s, kT)}
       status := 1; n := 0;
       IF NOT live THEN RETURN; END IF;
       DELETE FROM ${s}.stream_pel p USING unnest(p_ms, p_seq) AS t(ms, seq)
         WHERE p.db = p_db AND p.key = p_key AND p.grp = p_grp AND p.ms = t.ms AND p.seq = t.seq;
       GET DIAGNOSTICS n = ROW_COUNT;
     END $f$`,
    // XPENDING key group: the first row (consumer NULL) has the count and the lowest and highest
    // ids, then one row per consumer with pending entries, by name. status 5 NOGROUP.
    `CREATE OR REPLACE FUNCTION ${s}.x_pending_sum(p_db int2, p_key bytea, p_grp bytea, p_now int8)
     RETURNS TABLE (status int2, consumer bytea, n int8, lo_ms int8, lo_seq int8, hi_ms int8, hi_seq int8)
     LANGUAGE plpgsql STABLE AS $f$
     #variable_conflict use_column
     DECLARE t text;
     BEGIN
       ${groupState(s)}
       IF t = 'wrong' THEN RETURN QUERY SELECT 2::int2, NULL::bytea, 0::int8, NULL::int8, NULL::int8, NULL::int8, NULL::int8; RETURN; END IF;
       IF t IS NULL OR t = 'nogroup' THEN RETURN QUERY SELECT 5::int2, NULL::bytea, 0::int8, NULL::int8, NULL::int8, NULL::int8, NULL::int8; RETURN; END IF;
       RETURN QUERY SELECT 1::int2, NULL::bytea, count(*), NULL::int8, NULL::int8, NULL::int8, NULL::int8
         FROM ${s}.stream_pel p WHERE p.db = p_db AND p.key = p_key AND p.grp = p_grp;
       RETURN QUERY (SELECT 1::int2, NULL::bytea, NULL::int8, p.ms, p.seq, NULL::int8, NULL::int8 FROM ${s}.stream_pel p
         WHERE p.db = p_db AND p.key = p_key AND p.grp = p_grp ORDER BY p.ms, p.seq LIMIT 1);
       RETURN QUERY (SELECT 1::int2, NULL::bytea, NULL::int8, NULL::int8, NULL::int8, p.ms, p.seq FROM ${s}.stream_pel p
         WHERE p.db = p_db AND p.key = p_key AND p.grp = p_grp ORDER BY p.ms DESC, p.seq DESC LIMIT 1);
       RETURN QUERY SELECT 1::int2, p.consumer, count(*), NULL::int8, NULL::int8, NULL::int8, NULL::int8 FROM ${s}.stream_pel p
         WHERE p.db = p_db AND p.key = p_key AND p.grp = p_grp GROUP BY p.consumer ORDER BY p.consumer;
     END $f$`,
    // XPENDING key group [IDLE ms] start end count [consumer]: up to p_count entries in
    // [lo, hi], idle ≥ p_idle; a named consumer that does not exist has none
    `CREATE OR REPLACE FUNCTION ${s}.x_pending(p_db int2, p_key bytea, p_grp bytea, p_lo_ms int8, p_lo_seq int8,
       p_hi_ms int8, p_hi_seq int8, p_count int8, p_idle int8, p_consumer bytea, p_now int8)
     RETURNS TABLE (status int2, ms int8, seq int8, consumer bytea, idle int8, deliveries int8)
     LANGUAGE plpgsql STABLE AS $f$
     #variable_conflict use_column
     DECLARE t text;
     BEGIN
       ${groupState(s)}
       IF t = 'wrong' THEN RETURN QUERY SELECT 2::int2, NULL::int8, NULL::int8, NULL::bytea, NULL::int8, NULL::int8; RETURN; END IF;
       IF t IS NULL OR t = 'nogroup' THEN RETURN QUERY SELECT 5::int2, NULL::int8, NULL::int8, NULL::bytea, NULL::int8, NULL::int8; RETURN; END IF;
       IF p_consumer IS NOT NULL THEN
         RETURN QUERY SELECT 1::int2, p.ms, p.seq, p.consumer, greatest(p_now - p.delivered, 0), p.deliveries
           FROM ${s}.stream_pel p WHERE p.db = p_db AND p.key = p_key AND p.grp = p_grp AND p.consumer = p_consumer
             AND (p.ms, p.seq) >= (p_lo_ms, p_lo_seq) AND (p.ms, p.seq) <= (p_hi_ms, p_hi_seq)
             AND p_now - p.delivered >= p_idle
           ORDER BY p.ms, p.seq LIMIT p_count;
       ELSE
         RETURN QUERY SELECT 1::int2, p.ms, p.seq, p.consumer, greatest(p_now - p.delivered, 0), p.deliveries
           FROM ${s}.stream_pel p WHERE p.db = p_db AND p.key = p_key AND p.grp = p_grp
             AND (p.ms, p.seq) >= (p_lo_ms, p_lo_seq) AND (p.ms, p.seq) <= (p_hi_ms, p_hi_seq)
             AND p_now - p.delivered >= p_idle
           ORDER BY p.ms, p.seq LIMIT p_count;
       END IF;
     END $f$`,
    // XCLAIM: ids in argument order. p_time = the new delivery time; p_retry < 0: not given;
    // p_last_ms NULL: no LASTID. Rows (status, ms, seq, fv): the claimed entries.
    `CREATE OR REPLACE FUNCTION ${s}.x_claim(p_db int2, p_key bytea, p_grp bytea, p_consumer bytea, p_minidle int8,
       p_ms int8[], p_seq int8[], p_time int8, p_retry int8, p_force bool, p_justid bool, p_last_ms int8, p_last_seq int8,
       p_now int8) RETURNS TABLE (status int2, ms int8, seq int8, fv bytea[]) LANGUAGE plpgsql AS $f$
     #variable_conflict use_column
     DECLARE r record; live bool; g record; p record; i int; touched bool := false; made bool;
     BEGIN
       ${lockKey(s, kT, 'p_key', 'r', 'live', 'RETURN QUERY SELECT 2::int2, NULL::int8, NULL::int8, NULL::bytea[]; RETURN;')}
       IF NOT live THEN RETURN QUERY SELECT 5::int2, NULL::int8, NULL::int8, NULL::bytea[]; RETURN; END IF;
       ${group(s, 'RETURN QUERY SELECT 5::int2, NULL::int8, NULL::int8, NULL::bytea[]; RETURN;')}
       IF p_last_ms IS NOT NULL AND (p_last_ms, p_last_seq) > (g.last_ms, g.last_seq) THEN
         UPDATE ${s}.stream_groups x SET last_ms = p_last_ms, last_seq = p_last_seq
           WHERE x.db = p_db AND x.key = p_key AND x.grp = p_grp;
       END IF;
       FOR i IN 1 .. cardinality(p_ms) LOOP
         SELECT x.consumer, x.delivered, x.deliveries INTO p FROM ${s}.stream_pel x
           WHERE x.db = p_db AND x.key = p_key AND x.grp = p_grp AND x.ms = p_ms[i] AND x.seq = p_seq[i];
         IF NOT ${entryExists(s, 'p_ms[i]', 'p_seq[i]')} THEN
           IF FOUND THEN
             DELETE FROM ${s}.stream_pel x WHERE x.db = p_db AND x.key = p_key AND x.grp = p_grp AND x.ms = p_ms[i] AND x.seq = p_seq[i];
           END IF;
           CONTINUE;
         END IF;
         IF NOT FOUND THEN
           IF NOT p_force THEN CONTINUE; END IF;
           SELECT NULL::bytea AS consumer, p_now AS delivered, 1::int8 AS deliveries INTO p;
         ELSIF p_minidle > 0 AND p_now - p.delivered < p_minidle THEN
           CONTINUE;
         END IF;
         IF NOT touched THEN ${touchConsumer(s)}; touched := true; ${kMadeRow} END IF;
         INSERT INTO ${s}.stream_pel AS x (db, key, grp, ms, seq, consumer, delivered, deliveries)
           VALUES (p_db, p_key, p_grp, p_ms[i], p_seq[i], p_consumer, p_time,
             CASE WHEN p_retry >= 0 THEN p_retry WHEN NOT p_justid THEN p.deliveries + 1 ELSE p.deliveries END)
           ON CONFLICT (db, key, grp, ms, seq) DO UPDATE SET consumer = excluded.consumer, delivered = excluded.delivered,
             deliveries = excluded.deliveries;
         RETURN QUERY SELECT 1::int2, p_ms[i], p_seq[i], CASE WHEN p_justid THEN NULL ELSE (SELECT e.fv FROM ${s}.stream_entries e
           WHERE e.db = p_db AND e.key = p_key AND e.ms = p_ms[i] AND e.seq = p_seq[i]) END;
       END LOOP;
     END $f$`,
    // XAUTOCLAIM: walks the group's PEL from the start id, examining at most p_count * 10
    // entries and claiming up to p_count idle ones; pending ids whose entry is gone are dropped
    // (and count). Rows: status 1 claimed (ms, seq, fv), 6 dropped id, 7 the next cursor
    // (0-0 when the walk reached the end).
    `CREATE OR REPLACE FUNCTION ${s}.x_autoclaim(p_db int2, p_key bytea, p_grp bytea, p_consumer bytea, p_minidle int8,
       p_ms int8, p_seq int8, p_count int8, p_justid bool, p_now int8)
     RETURNS TABLE (status int2, ms int8, seq int8, fv bytea[]) LANGUAGE plpgsql AS $f$
     #variable_conflict use_column
     DECLARE r record; live bool; g record; p record; attempts int8 := p_count * 10; cnt int8 := p_count;
       touched bool := false; made bool; nms int8 := ${Z}; nseq int8 := ${Z};
     BEGIN
       ${lockKey(s, kT, 'p_key', 'r', 'live', 'RETURN QUERY SELECT 2::int2, NULL::int8, NULL::int8, NULL::bytea[]; RETURN;')}
       IF NOT live THEN RETURN QUERY SELECT 5::int2, NULL::int8, NULL::int8, NULL::bytea[]; RETURN; END IF;
       ${group(s, 'RETURN QUERY SELECT 5::int2, NULL::int8, NULL::int8, NULL::bytea[]; RETURN;', '')}
       FOR p IN SELECT x.ms, x.seq, x.delivered FROM ${s}.stream_pel x
           WHERE x.db = p_db AND x.key = p_key AND x.grp = p_grp AND (x.ms, x.seq) >= (p_ms, p_seq) ORDER BY x.ms, x.seq LOOP
         IF attempts = 0 OR cnt = 0 THEN nms := p.ms; nseq := p.seq; EXIT; END IF;
         attempts := attempts - 1;
         IF NOT ${entryExists(s, 'p.ms', 'p.seq')} THEN
           DELETE FROM ${s}.stream_pel x WHERE x.db = p_db AND x.key = p_key AND x.grp = p_grp AND x.ms = p.ms AND x.seq = p.seq;
           RETURN QUERY SELECT 6::int2, p.ms, p.seq, NULL::bytea[];
           cnt := cnt - 1;
           CONTINUE;
         END IF;
         IF p_minidle > 0 AND p_now - p.delivered < p_minidle THEN CONTINUE; END IF;
         IF NOT touched THEN ${touchConsumer(s)}; touched := true; ${kMadeRow} END IF;
         UPDATE ${s}.stream_pel x SET consumer = p_consumer, delivered = p_now,
             deliveries = x.deliveries + CASE WHEN p_justid THEN 0 ELSE 1 END
           WHERE x.db = p_db AND x.key = p_key AND x.grp = p_grp AND x.ms = p.ms AND x.seq = p.seq;
         RETURN QUERY SELECT 1::int2, p.ms, p.seq, CASE WHEN p_justid THEN NULL ELSE (SELECT e.fv FROM ${s}.stream_entries e
           WHERE e.db = p_db AND e.key = p_key AND e.ms = p.ms AND e.seq = p.seq) END;
         cnt := cnt - 1;
       END LOOP;
       RETURN QUERY SELECT 7::int2, nms, nseq, NULL::bytea[];
     END $f$`,
  ];
}
