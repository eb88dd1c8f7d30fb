/**
 * Stream functions (docs/streams.md). Ids are stored shifted (./id.ts): 0-0 is (Z, Z) with
 * Z = -2^63, the last possible id (M, M) with M = 2^63 - 1. The stream's own state is in its kv
 * row (x_last, x_added, x_maxdel; card = length), entries in stream_entries, Redis's listpack
 * nodes in stream_nodes (what MAXLEN/MINID ~ remove whole), groups, consumers and the pending
 * entries list in their tables. Status codes: collection/functions.ts (0 missing, 1 done, 2
 * WRONGTYPE), then per function below.
 */
import { createKey, lockKey } from '../collection/functions';
import { live } from '../kv-row';
import { kStreamType } from './sql';
import { streamGroupFunctions } from './functions-groups';

export const Z = `'-9223372036854775808'::int8`;
export const M = '9223372036854775807::int8';
/** the kv columns a stream write reads after lockKey */
export const kXCols = ', k.x_last_ms, k.x_last_seq, k.x_added, k.x_maxdel_ms, k.x_maxdel_seq';
const kT = kStreamType;

export function streamFunctions(s: string): string[] {
  return [
    // The first live entry ((Z, Z) for an empty stream): Redis's recorded-first-entry-id
    `CREATE OR REPLACE FUNCTION ${s}.x_first(p_db int2, p_key bytea, OUT ms int8, OUT seq int8)
     LANGUAGE sql STABLE AS $f$
       SELECT coalesce(min(e.ms), ${Z}), coalesce((array_agg(e.seq))[1], ${Z}) FROM (
         SELECT e.ms, e.seq FROM ${s}.stream_entries e WHERE e.db = p_db AND e.key = p_key
         ORDER BY e.ms, e.seq LIMIT 1) e
     $f$`,
    // streamRangeHasTombstones(s, start, NULL): a deleted id at or after `start` still inside the stream
    `CREATE OR REPLACE FUNCTION ${s}.x_tombstones(p_len int8, p_fms int8, p_fseq int8, p_dms int8, p_dseq int8,
       p_sms int8, p_sseq int8) RETURNS bool LANGUAGE sql IMMUTABLE AS $f$
       SELECT p_len > 0 AND (p_dms, p_dseq) <> (${Z}, ${Z}) AND (p_fms, p_fseq) <= (p_dms, p_dseq)
         AND (p_sms, p_sseq) <= (p_dms, p_dseq)
     $f$`,
    // streamEstimateDistanceFromFirstEverEntry: an id's logical read counter, NULL when unknown
    `CREATE OR REPLACE FUNCTION ${s}.x_estimate(p_added int8, p_len int8, p_lms int8, p_lseq int8, p_fms int8, p_fseq int8,
       p_dms int8, p_dseq int8, p_ims int8, p_iseq int8) RETURNS int8 LANGUAGE sql IMMUTABLE AS $f$
       SELECT CASE
         WHEN p_added = 0 THEN 0
         WHEN p_len = 0 AND (p_ims, p_iseq) <= (p_lms, p_lseq) THEN p_added
         WHEN (p_ims, p_iseq) = (p_lms, p_lseq) THEN p_added
         WHEN (p_ims, p_iseq) > (p_lms, p_lseq) THEN NULL
         WHEN ((p_dms, p_dseq) = (${Z}, ${Z}) OR (p_dms, p_dseq) < (p_fms, p_fseq)) AND (p_ims, p_iseq) < (p_fms, p_fseq)
           THEN p_added - p_len
         WHEN ((p_dms, p_dseq) = (${Z}, ${Z}) OR (p_dms, p_dseq) < (p_fms, p_fseq)) AND (p_ims, p_iseq) = (p_fms, p_fseq)
           THEN p_added - p_len + 1
         ELSE NULL END
     $f$`,
    // streamTrim: whole nodes from the oldest while the strategy allows (MAXLEN: the stream keeps
    // ≥ p_maxlen; MINID: the node's last id < p_min), at most p_limit entries (0 = no limit);
    // then, unless approximate, the entries of the next node that still go. Returns the entries
    // deleted; the caller updates kv.card. p_trim: 1 MAXLEN, 2 MINID.
    `CREATE OR REPLACE FUNCTION ${s}.x_trim_nodes(p_db int2, p_key bytea, p_len int8, p_trim int2, p_approx bool,
       p_maxlen int8, p_min_ms int8, p_min_seq int8, p_limit int8) RETURNS int8 LANGUAGE plpgsql AS $f$
     DECLARE nd record; len int8 := p_len; deleted int8 := 0; k int8; gone bool;
     BEGIN
       FOR nd IN SELECT t.ms, t.seq, t.live, t.last_ms, t.last_seq FROM ${s}.stream_nodes t
           WHERE t.db = p_db AND t.key = p_key ORDER BY t.ms, t.seq LOOP
         IF p_trim = 1 AND len <= p_maxlen THEN EXIT; END IF;
         IF p_limit > 0 AND deleted + nd.live > p_limit THEN EXIT; END IF;
         IF p_trim = 1 THEN gone := len - nd.live >= p_maxlen;
         ELSE gone := (nd.last_ms, nd.last_seq) < (p_min_ms, p_min_seq); END IF;
         IF gone THEN
           DELETE FROM ${s}.stream_entries e WHERE e.db = p_db AND e.key = p_key
             AND (e.ms, e.seq) >= (nd.ms, nd.seq) AND (e.ms, e.seq) <= (nd.last_ms, nd.last_seq);
           DELETE FROM ${s}.stream_nodes t WHERE t.db = p_db AND t.key = p_key AND t.ms = nd.ms AND t.seq = nd.seq;
           len := len - nd.live; deleted := deleted + nd.live;
           CONTINUE;
         END IF;
         IF p_approx THEN EXIT; END IF;
         IF p_trim = 1 THEN
           DELETE FROM ${s}.stream_entries e WHERE e.db = p_db AND e.key = p_key AND (e.ms, e.seq) IN (
             SELECT x.ms, x.seq FROM ${s}.stream_entries x WHERE x.db = p_db AND x.key = p_key
               AND (x.ms, x.seq) >= (nd.ms, nd.seq) ORDER BY x.ms, x.seq LIMIT len - p_maxlen);
         ELSE
           DELETE FROM ${s}.stream_entries e WHERE e.db = p_db AND e.key = p_key
             AND (e.ms, e.seq) >= (nd.ms, nd.seq) AND (e.ms, e.seq) < (p_min_ms, p_min_seq);
         END IF;
         GET DIAGNOSTICS k = ROW_COUNT;
         UPDATE ${s}.stream_nodes t SET live = live - k WHERE t.db = p_db AND t.key = p_key AND t.ms = nd.ms AND t.seq = nd.seq;
         deleted := deleted + k;
         EXIT;
       END LOOP;
       RETURN deleted;
     END $f$`,
    // XADD. p_mode: 0 '*' (from p_now, shifted), 1 ms-seq, 2 ms-*. status 0: NOMKSTREAM and no
    // key (nil); 3 the last possible id was reached; 4 the id is not above the top item.
    // The entry joins the last node unless it holds p_node_entries entries (deleted ones
    // included) or its bytes would reach p_node_bytes (Redis's stream-node-max-*).
    `CREATE OR REPLACE FUNCTION ${s}.x_add(p_db int2, p_key bytea, p_mode int2, p_ms int8, p_seq int8, p_fv bytea[],
       p_nomk bool, p_trim int2, p_approx bool, p_maxlen int8, p_min_ms int8, p_min_seq int8, p_limit int8,
       p_node_entries int8, p_node_bytes int8, p_bytes int8, p_now int8, p_xnow int8,
       OUT status int2, OUT ms int8, OUT seq int8, OUT trimmed int8) LANGUAGE plpgsql AS $f$
     #variable_conflict use_variable
     DECLARE r record; live bool; lms int8 := ${Z}; lseq int8 := ${Z}; nd record; len int8 := 0;
     BEGIN
       status := 1; trimmed := 0;
       LOOP
         ${lockKey(s, kT, 'p_key', 'r', 'live', 'status := 2; RETURN;', kXCols)}
         IF live THEN
           lms := r.x_last_ms; lseq := r.x_last_seq; len := r.card;
           EXIT;
         END IF;
         IF p_nomk THEN status := 0; RETURN; END IF;
         ${createKey(s, kT, '0')}
         UPDATE ${s}.kv SET x_last_ms = ${Z}, x_last_seq = ${Z}, x_added = 0, x_maxdel_ms = ${Z}, x_maxdel_seq = ${Z}
           WHERE db = p_db AND key = p_key;
         EXIT;
       END LOOP;
       IF lms = ${M} AND lseq = ${M} THEN status := 3; RETURN; END IF;
       IF p_mode = 0 THEN
         IF p_xnow > lms THEN ms := p_xnow; seq := ${Z};
         ELSIF lseq < ${M} THEN ms := lms; seq := lseq + 1;
         ELSE ms := lms + 1; seq := ${Z}; END IF;
       ELSIF p_mode = 2 THEN
         IF p_ms = lms THEN
           IF lseq = ${M} THEN status := 4; RETURN; END IF;
           ms := lms; seq := lseq + 1;
         ELSE ms := p_ms; seq := ${Z}; END IF;
       ELSE
         ms := p_ms; seq := p_seq;
       END IF;
       IF (ms, seq) <= (lms, lseq) THEN status := 4; RETURN; END IF;
       INSERT INTO ${s}.stream_entries (db, key, ms, seq, fv) VALUES (p_db, p_key, ms, seq, p_fv);
       SELECT t.ms, t.seq, t.total, t.bytes INTO nd FROM ${s}.stream_nodes t WHERE t.db = p_db AND t.key = p_key
         ORDER BY t.ms DESC, t.seq DESC LIMIT 1;
       IF FOUND AND nd.bytes + p_bytes < p_node_bytes AND (p_node_entries = 0 OR nd.total < p_node_entries) THEN
         UPDATE ${s}.stream_nodes t SET live = t.live + 1, total = t.total + 1, bytes = t.bytes + p_bytes, last_ms = ms, last_seq = seq
           WHERE t.db = p_db AND t.key = p_key AND t.ms = nd.ms AND t.seq = nd.seq;
       ELSE
         INSERT INTO ${s}.stream_nodes (db, key, ms, seq, live, total, bytes, last_ms, last_seq)
           VALUES (p_db, p_key, ms, seq, 1, 1, p_bytes, ms, seq);
       END IF;
       len := len + 1;
       IF p_trim > 0 THEN
         trimmed := ${s}.x_trim_nodes(p_db, p_key, len, p_trim, p_approx, p_maxlen, p_min_ms, p_min_seq, p_limit);
       END IF;
       UPDATE ${s}.kv SET card = len - trimmed, x_last_ms = ms, x_last_seq = seq, x_added = x_added + 1, version = txid_current()
         WHERE db = p_db AND key = p_key;
     END $f$`,
    // XTRIM: n = entries deleted; a missing key trims nothing
    `CREATE OR REPLACE FUNCTION ${s}.x_trim(p_db int2, p_key bytea, p_trim int2, p_approx bool, p_maxlen int8,
       p_min_ms int8, p_min_seq int8, p_limit int8, p_now int8, OUT status int2, OUT n int8) LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool;
     BEGIN
       ${lockKey(s, kT)}
       status := 1; n := 0;
       IF NOT live THEN RETURN; END IF;
       n := ${s}.x_trim_nodes(p_db, p_key, r.card, p_trim, p_approx, p_maxlen, p_min_ms, p_min_seq, p_limit);
       IF n > 0 THEN
         UPDATE ${s}.kv SET card = card - n, version = txid_current() WHERE db = p_db AND key = p_key;
       END IF;
     END $f$`,
    // XDEL: n = entries deleted (an id named twice counts once); a node whose last live entry
    // goes is removed, as Redis frees a listpack; max-deleted-entry-id follows
    `CREATE OR REPLACE FUNCTION ${s}.x_del(p_db int2, p_key bytea, p_ms int8[], p_seq int8[], p_now int8,
       OUT status int2, OUT n int8) LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; i int; nd record; dms int8; dseq int8;
     BEGIN
       ${lockKey(s, kT, 'p_key', 'r', 'live', 'status := 2; RETURN;', kXCols)}
       status := 1; n := 0;
       IF NOT live THEN RETURN; END IF;
       dms := r.x_maxdel_ms; dseq := r.x_maxdel_seq;
       FOR i IN 1 .. cardinality(p_ms) LOOP
         DELETE FROM ${s}.stream_entries e WHERE e.db = p_db AND e.key = p_key AND e.ms = p_ms[i] AND e.seq = p_seq[i];
         IF NOT FOUND THEN CONTINUE; END IF;
         n := n + 1;
         SELECT t.ms, t.seq, t.live INTO nd FROM ${s}.stream_nodes t WHERE t.db = p_db AND t.key = p_key
           AND (t.ms, t.seq) <= (p_ms[i], p_seq[i]) ORDER BY t.ms DESC, t.seq DESC LIMIT 1;
         IF nd.live <= 1 THEN
           DELETE FROM ${s}.stream_nodes t WHERE t.db = p_db AND t.key = p_key AND t.ms = nd.ms AND t.seq = nd.seq;
         ELSE
           UPDATE ${s}.stream_nodes t SET live = t.live - 1 WHERE t.db = p_db AND t.key = p_key AND t.ms = nd.ms AND t.seq = nd.seq;
         END IF;
         IF (p_ms[i], p_seq[i]) > (dms, dseq) THEN dms := p_ms[i]; dseq := p_seq[i]; END IF;
       END LOOP;
       IF n > 0 THEN
         UPDATE ${s}.kv SET card = card - n, x_maxdel_ms = dms, x_maxdel_seq = dseq, version = txid_current()
           WHERE db = p_db AND key = p_key;
       END IF;
     END $f$`,
    // XSETID key id [ENTRIESADDED n] [MAXDELETEDID id] (NULL: not given, as is a 0-0 MAXDELETEDID).
    // status 0 no key, 3 id below the top item, 4 entries_added below the length (both only
    // checked while the stream has entries; redis-server 7.0.15 does not compare the id with the
    // current max-deleted-entry-id)
    `CREATE OR REPLACE FUNCTION ${s}.x_setid(p_db int2, p_key bytea, p_ms int8, p_seq int8, p_added int8,
       p_dms int8, p_dseq int8, p_now int8, OUT status int2) LANGUAGE plpgsql AS $f$
     DECLARE r record; live bool; top record;
     BEGIN
       ${lockKey(s, kT, 'p_key', 'r', 'live', 'status := 2; RETURN;', kXCols)}
       IF NOT live THEN status := 0; RETURN; END IF;
       IF r.card > 0 THEN
         SELECT e.ms, e.seq INTO top FROM ${s}.stream_entries e WHERE e.db = p_db AND e.key = p_key
           ORDER BY e.ms DESC, e.seq DESC LIMIT 1;
         IF (p_ms, p_seq) < (top.ms, top.seq) THEN status := 3; RETURN; END IF;
         IF p_added IS NOT NULL AND r.card > p_added THEN status := 4; RETURN; END IF;
       END IF;
       UPDATE ${s}.kv SET x_last_ms = p_ms, x_last_seq = p_seq, x_added = coalesce(p_added, x_added),
           x_maxdel_ms = coalesce(p_dms, x_maxdel_ms), x_maxdel_seq = coalesce(p_dseq, x_maxdel_seq), version = txid_current()
         WHERE db = p_db AND key = p_key;
       status := 1;
     END $f$`,
    // XREAD: each key's entries after its id (NULL: '$', the stream's last id), at most p_count
    // each (NULL: all). Rows (i, type, ms, seq, fv); a key that is not a stream gives one row
    // with its type; a stream with nothing new gives no row. The start ids are taken from the
    // first loop's kv rows (the function is STABLE: one snapshot) into variables, so the entries'
    // scan starts at the id in stream_entries_pkey: joined with kv for coalesce(p_ms[j],
    // k.x_last_ms), the lanes' cached plan filtered every entry of the stream (1.1 ms of Postgres
    // CPU per XREAD of 2 entries from 5,000; BullMQ's QueueEvents sends 1-3 per job)
    `CREATE OR REPLACE FUNCTION ${s}.x_read(p_db int2, p_keys bytea[], p_ms int8[], p_seq int8[], p_count int8, p_now int8)
     RETURNS TABLE (i int4, type int2, ms int8, seq int8, fv bytea[]) LANGUAGE plpgsql STABLE AS $f$
     #variable_conflict use_column
     DECLARE j int; r record; sms int8[]; sseq int8[];
     BEGIN
       FOR j IN 1 .. cardinality(p_keys) LOOP
         SELECT k.type, k.x_last_ms, k.x_last_seq INTO r FROM ${s}.kv k
           WHERE k.db = p_db AND k.key = p_keys[j] AND ${live('k')};
         IF NOT FOUND THEN CONTINUE; END IF;
         IF r.type <> ${kT} THEN RETURN QUERY SELECT j, r.type, NULL::int8, NULL::int8, NULL::bytea[]; RETURN; END IF;
         sms[j] := coalesce(p_ms[j], r.x_last_ms);
         sseq[j] := coalesce(p_seq[j], r.x_last_seq);
       END LOOP;
       FOR j IN 1 .. cardinality(p_keys) LOOP
         CONTINUE WHEN sms[j] IS NULL;
         RETURN QUERY SELECT j, ${kT}::int2, e.ms, e.seq, e.fv FROM ${s}.stream_entries e
           WHERE e.db = p_db AND e.key = p_keys[j] AND (e.ms, e.seq) > (sms[j], sseq[j])
           ORDER BY e.ms, e.seq LIMIT p_count;
       END LOOP;
     END $f$`,
    ...streamGroupFunctions(s),
  ];
}
