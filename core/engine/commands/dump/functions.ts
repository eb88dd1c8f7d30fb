/**
 * DUMP's read and RESTORE's write, in Postgres. dump_rows: the key's type and its value or its
 * elements in their order (list positions, zset (score, member)). restore_key: the key replaced
 * (REPLACE) or refused when it exists, then created with its rows in one function: one round
 * trip, the kv row locked first as every family's write does.
 *
 * restore_key statuses: 1 restored, 3 the key exists (BUSYKEY), 4 a TTL already past deleted an
 * existing key (REPLACE), 5 a TTL already past and no key: nothing done. restore_stream answers
 * the same; both start with restore_claim (the kv row, or the status that stops them).
 *
 * A stream's rows (dump_rows `kind`, ids shifted as stream/id.ts stores them): 0 (ms, seq) last
 * id, x entries-added, y length; 1 (ms, seq) max-deleted-entry-id; 2 nodes (ms, seq) first id;
 * 3 entries (ms, seq) fv; 4 groups a, (ms, seq) last-delivered, x entries-read; 5 consumers a b,
 * x seen-time; 6 PEL a b, (ms, seq), x delivery time, y deliveries. Each kind in Redis's order
 * (ids; names as memcmp, which is bytea's order), in one statement: one snapshot.
 */
import { kWatchMark, live } from '../kv-row';

export function dumpFunctions(s: string): string[] {
  return [
    `CREATE OR REPLACE FUNCTION ${s}.dump_rows(p_db int2, p_key bytea, p_now int8)
     RETURNS TABLE (type int2, a bytea, b bytea, sc float8, kind int2, ms int8, seq int8, x int8, y int8, fv bytea[])
     LANGUAGE plpgsql STABLE AS $f$
     #variable_conflict use_column
     DECLARE r record;
     BEGIN
       SELECT k.type, k.value INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key AND ${live('k')};
       IF NOT FOUND THEN RETURN; END IF;
       CASE r.type
         WHEN 0 THEN RETURN QUERY SELECT 0::int2, r.value, NULL::bytea, NULL::float8, NULL::int2, NULL::int8, NULL::int8, NULL::int8, NULL::int8, NULL::bytea[];
         WHEN 1 THEN RETURN QUERY SELECT 1::int2, h.field, h.value, NULL::float8, NULL::int2, NULL::int8, NULL::int8, NULL::int8, NULL::int8, NULL::bytea[] FROM ${s}.hashes h
           WHERE h.db = p_db AND h.key = p_key;
         WHEN 2 THEN RETURN QUERY SELECT 2::int2, l.value, NULL::bytea, NULL::float8, NULL::int2, NULL::int8, NULL::int8, NULL::int8, NULL::int8, NULL::bytea[] FROM ${s}.lists l
           WHERE l.db = p_db AND l.key = p_key ORDER BY l.pos;
         WHEN 3 THEN RETURN QUERY SELECT 3::int2, m.member, NULL::bytea, NULL::float8, NULL::int2, NULL::int8, NULL::int8, NULL::int8, NULL::int8, NULL::bytea[] FROM ${s}.sets m
           WHERE m.db = p_db AND m.key = p_key;
         WHEN 4 THEN RETURN QUERY SELECT 4::int2, z.member, NULL::bytea, z.score, NULL::int2, NULL::int8, NULL::int8, NULL::int8, NULL::int8, NULL::bytea[] FROM ${s}.zsets z
           WHERE z.db = p_db AND z.key = p_key ORDER BY z.score, z.member;
         WHEN 5 THEN
           RETURN QUERY SELECT 5::int2, NULL::bytea, NULL::bytea, NULL::float8, 0::int2, k.x_last_ms, k.x_last_seq, k.x_added,
             k.card, NULL::bytea[] FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key;
           RETURN QUERY SELECT 5::int2, NULL::bytea, NULL::bytea, NULL::float8, 1::int2, k.x_maxdel_ms, k.x_maxdel_seq,
             NULL::int8, NULL::int8, NULL::bytea[] FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key;
           RETURN QUERY SELECT 5::int2, NULL::bytea, NULL::bytea, NULL::float8, 2::int2, t.ms, t.seq, NULL::int8, NULL::int8,
             NULL::bytea[] FROM ${s}.stream_nodes t WHERE t.db = p_db AND t.key = p_key ORDER BY t.ms, t.seq;
           RETURN QUERY SELECT 5::int2, NULL::bytea, NULL::bytea, NULL::float8, 3::int2, e.ms, e.seq, NULL::int8, NULL::int8,
             e.fv FROM ${s}.stream_entries e WHERE e.db = p_db AND e.key = p_key ORDER BY e.ms, e.seq;
           RETURN QUERY SELECT 5::int2, g.grp, NULL::bytea, NULL::float8, 4::int2, g.last_ms, g.last_seq, g.entries_read,
             NULL::int8, NULL::bytea[] FROM ${s}.stream_groups g WHERE g.db = p_db AND g.key = p_key ORDER BY g.grp;
           RETURN QUERY SELECT 5::int2, c.grp, c.consumer, NULL::float8, 5::int2, NULL::int8, NULL::int8, c.seen, NULL::int8,
             NULL::bytea[] FROM ${s}.stream_consumers c WHERE c.db = p_db AND c.key = p_key ORDER BY c.grp, c.consumer;
           RETURN QUERY SELECT 5::int2, p.grp, p.consumer, NULL::float8, 6::int2, p.ms, p.seq, p.delivered, p.deliveries,
             NULL::bytea[] FROM ${s}.stream_pel p WHERE p.db = p_db AND p.key = p_key ORDER BY p.grp, p.ms, p.seq;
         ELSE NULL;
       END CASE;
     END $f$`,
    // the kv row of the restored key (type p_type, p_card elements): status 1 made, else the
    // status that ends the restore (3 BUSYKEY, 4/5 a TTL already past)
    `CREATE OR REPLACE FUNCTION ${s}.restore_claim(p_db int2, p_key bytea, p_type int2, p_value bytea, p_card int8,
       p_replace bool, p_exp int8, p_now int8) RETURNS int2 LANGUAGE plpgsql AS $f$
     DECLARE r record; deleted bool := false;
     BEGIN
       LOOP
         SELECT k.type, k.expires_at INTO r FROM ${s}.kv k WHERE k.db = p_db AND k.key = p_key FOR UPDATE;
         IF FOUND AND ${live('r')} THEN
           IF NOT p_replace THEN RETURN 3; END IF;
           DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key;
           deleted := true;
         ELSIF FOUND AND r.type <> ${kWatchMark} THEN
           DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key;
         END IF;
         IF p_exp IS NOT NULL AND p_exp <= p_now THEN RETURN CASE WHEN deleted THEN 4 ELSE 5 END; END IF;
         INSERT INTO ${s}.kv AS k (db, key, type, value, expires_at, card, head, version)
           VALUES (p_db, p_key, p_type, CASE WHEN p_type = 0 THEN p_value END, p_exp,
                   CASE WHEN p_type <> 0 THEN p_card END, CASE WHEN p_type <> 0 THEN 0 END, txid_current())
           ON CONFLICT (db, key) DO UPDATE SET type = excluded.type, value = excluded.value, expires_at = excluded.expires_at,
             card = excluded.card, head = excluded.head, version = excluded.version WHERE k.type = ${kWatchMark};
         IF FOUND THEN RETURN 1; END IF;
       END LOOP;
     END $f$`,
    // p_a: the list's items, set members, hash fields or zset members; p_b hash values; p_sc scores
    `CREATE OR REPLACE FUNCTION ${s}.restore_key(p_db int2, p_key bytea, p_type int2, p_value bytea, p_a bytea[],
       p_b bytea[], p_sc float8[], p_replace bool, p_exp int8, p_now int8, OUT status int2) LANGUAGE plpgsql AS $f$
     BEGIN
       status := ${s}.restore_claim(p_db, p_key, p_type, p_value, cardinality(p_a), p_replace, p_exp, p_now);
       IF status <> 1 THEN RETURN; END IF;
       CASE p_type
         WHEN 1 THEN INSERT INTO ${s}.hashes (db, key, field, value) SELECT p_db, p_key, t.f, t.v FROM unnest(p_a, p_b) AS t(f, v);
         WHEN 2 THEN INSERT INTO ${s}.lists (db, key, pos, value) SELECT p_db, p_key, t.i - 1, t.v
           FROM unnest(p_a) WITH ORDINALITY AS t(v, i);
         WHEN 3 THEN INSERT INTO ${s}.sets (db, key, member) SELECT p_db, p_key, t.m FROM unnest(p_a) AS t(m);
         WHEN 4 THEN INSERT INTO ${s}.zsets (db, key, member, score) SELECT p_db, p_key, t.m, t.sc + 0 FROM unnest(p_a, p_sc) AS t(m, sc);
         ELSE NULL;
       END CASE;
     END $f$`,
    // A stream (dump/restore-stream.ts packs the arrays; ids shifted): p_meta (length, last id,
    // entries-added, max-deleted id); p_nodes 7 per node (first id, live, total, bytes, last id);
    // p_eids 2 per entry, p_fv its fields and values, p_fe the entry (1-based) of each; groups
    // p_gname with p_gids 3 each (last id, entries-read); consumers (p_cgrp, p_cname, p_cseen);
    // the PEL (p_pgrp, p_pcons) with p_pids 4 each (id, delivery time, deliveries). Arrays of
    // int8 are indexed (O(1) without NULLs), bytea arrays unnested once: linear in the stream.
    `CREATE OR REPLACE FUNCTION ${s}.restore_stream(p_db int2, p_key bytea, p_replace bool, p_exp int8, p_now int8,
       p_meta int8[], p_nodes int8[], p_eids int8[], p_fv bytea[], p_fe int8[], p_gname bytea[], p_gids int8[],
       p_cgrp bytea[], p_cname bytea[], p_cseen int8[], p_pgrp bytea[], p_pcons bytea[], p_pids int8[],
       OUT status int2) LANGUAGE plpgsql AS $f$
     BEGIN
       status := ${s}.restore_claim(p_db, p_key, 5::int2, NULL, p_meta[1], p_replace, p_exp, p_now);
       IF status <> 1 THEN RETURN; END IF;
       UPDATE ${s}.kv SET x_last_ms = p_meta[2], x_last_seq = p_meta[3], x_added = p_meta[4], x_maxdel_ms = p_meta[5],
           x_maxdel_seq = p_meta[6] WHERE db = p_db AND key = p_key;
       INSERT INTO ${s}.stream_nodes (db, key, ms, seq, live, total, bytes, last_ms, last_seq)
         SELECT p_db, p_key, p_nodes[i + 1], p_nodes[i + 2], p_nodes[i + 3], p_nodes[i + 4], p_nodes[i + 5], p_nodes[i + 6], p_nodes[i + 7]
         FROM generate_series(0, coalesce(cardinality(p_nodes), 0) - 1, 7) AS i;
       INSERT INTO ${s}.stream_entries (db, key, ms, seq, fv)
         SELECT p_db, p_key, p_eids[2 * g.e - 1], p_eids[2 * g.e], g.fv FROM (
           SELECT t.e, array_agg(t.v ORDER BY t.i) AS fv FROM unnest(p_fv, p_fe) WITH ORDINALITY AS t(v, e, i) GROUP BY t.e) g;
       INSERT INTO ${s}.stream_groups (db, key, grp, last_ms, last_seq, entries_read)
         SELECT p_db, p_key, t.g, p_gids[3 * t.i - 2], p_gids[3 * t.i - 1], p_gids[3 * t.i]
         FROM unnest(p_gname) WITH ORDINALITY AS t(g, i);
       INSERT INTO ${s}.stream_consumers (db, key, grp, consumer, seen)
         SELECT p_db, p_key, t.g, t.c, t.s FROM unnest(p_cgrp, p_cname, p_cseen) AS t(g, c, s);
       INSERT INTO ${s}.stream_pel (db, key, grp, ms, seq, consumer, delivered, deliveries)
         SELECT p_db, p_key, t.g, p_pids[4 * t.i - 3], p_pids[4 * t.i - 2], t.c, p_pids[4 * t.i - 1], p_pids[4 * t.i]
         FROM unnest(p_pgrp, p_pcons) WITH ORDINALITY AS t(g, c, i);
     END $f$`,
  ];
}
