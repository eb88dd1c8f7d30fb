/**
 * Server-side functions of the generic key commands (EXPIRE family, RENAME, COPY, MOVE, SWAPDB,
 * RANDOMKEY, MEMORY USAGE, FLUSHALL). They act on the kv row, whatever the key's type.
 *
 * Collection tables (hash, list, set, zset, stream) are listed in kv_children (kChildTables), with the
 * columns to copy read from the catalog. The contract for such a table:
 *   - (db, key) columns naming its kv row; triggers kv_deleted and kv_type_changed (function
 *     kv_drop_rows, migration 4) delete its rows when the kv row goes (DEL, expiry, overwrite by
 *     another type), kv_truncated on TRUNCATE kv (FLUSHALL);
 *   - its other columns can be copied as they are to another key (identity and generated columns
 *     are left to their defaults).
 * Then RENAME/MOVE re-point the child rows (UPDATE … SET db, key), COPY duplicates them, SWAPDB
 * moves them with the kv rows.
 * Every change to a key stamps kv.version with the writing transaction's id (txid_current(), as
 * everywhere: WATCH compares it), the destination of RENAME/COPY/MOVE and both SWAPDB sides too.
 *
 * move_key / copy_key status: -1 = no such source key, 0 = not done (destination exists), 1 = done.
 */
import { expired, kWatchMark, live, watchMark } from '../kv-row';

const kChildTables = ['hashes', 'lists', 'sets', 'zsets',
  'stream_entries', 'stream_nodes', 'stream_groups', 'stream_consumers', 'stream_pel'];

export function keyFunctions(s: string): string[] {
  // both rows locked in (db, key) order, as every multi-row writer does: no deadlocks. One
  // primary-key lookup each: a single statement ordering both rows by (db, key) walked all of
  // kv_pkey (enable_sort = off prices the index order below a sort of two rows): 168 ms a
  // RENAME with 300k keys (test/sql/hot-plans.test.ts)
  const lockPair = `FOR l IN SELECT t.db, t.key FROM unnest(ARRAY[p_sdb, p_ddb], ARRAY[p_src, p_dst]) AS t(db, key) ORDER BY t.db, t.key LOOP
             PERFORM 1 FROM ${s}.kv k WHERE k.db = l.db AND k.key = l.key FOR UPDATE;
           END LOOP`;
  return [
    `CREATE OR REPLACE FUNCTION ${s}.kv_children(OUT tbl regclass, OUT db_col text, OUT key_col text, OUT cols text)
     RETURNS SETOF record LANGUAGE sql STABLE AS $f$
       SELECT t.tbl, 'db', 'key',
         (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FROM pg_attribute a
           WHERE a.attrelid = t.tbl AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
             AND a.attidentity = '' AND a.attname NOT IN ('db', 'key'))
       FROM unnest(ARRAY[${kChildTables.map((t) => `'${s}.${t}'`).join(', ')}]::regclass[]) AS t(tbl)
     $f$`,
    // kv's columns other than db, key, version (card, head… whatever later migrations add)
    `CREATE OR REPLACE FUNCTION ${s}.kv_columns() RETURNS text LANGUAGE sql STABLE AS $f$
       SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute
       WHERE attrelid = '${s}.kv'::regclass AND attnum > 0 AND NOT attisdropped
         AND attname NOT IN ('db', 'key', 'version')
     $f$`,
    // the kv row of (sdb, src) inserted as (ddb, dst); its child rows copied (p_copy) or re-pointed
    `CREATE OR REPLACE FUNCTION ${s}.copy_rows(p_sdb int2, p_src bytea, p_ddb int2, p_dst bytea, p_copy bool)
     RETURNS void LANGUAGE plpgsql AS $f$
     DECLARE cols text := ${s}.kv_columns(); c record;
     BEGIN
       EXECUTE format('INSERT INTO ${s}.kv (db, key, version, %s) SELECT $3, $4, txid_current(), %s
         FROM ${s}.kv WHERE db = $1 AND key = $2', cols, cols) USING p_sdb, p_src, p_ddb, p_dst;
       FOR c IN SELECT * FROM ${s}.kv_children() LOOP
         IF p_copy THEN
           EXECUTE format('INSERT INTO %s (%s, %s%s) SELECT $3, $4%s FROM %s WHERE %s = $1 AND %s = $2',
             c.tbl, c.db_col, c.key_col, coalesce(', ' || c.cols, ''), coalesce(', ' || c.cols, ''),
             c.tbl, c.db_col, c.key_col) USING p_sdb, p_src, p_ddb, p_dst;
         ELSE
           EXECUTE format('UPDATE %s SET %s = $3, %s = $4 WHERE %s = $1 AND %s = $2',
             c.tbl, c.db_col, c.key_col, c.db_col, c.key_col) USING p_sdb, p_src, p_ddb, p_dst;
         END IF;
       END LOOP;
     END $f$`,
    // EXPIRE family: p_when absolute ms; flags 1 NX, 2 XX, 4 GT, 8 LT (Redis's expireGenericCommand)
    `CREATE OR REPLACE FUNCTION ${s}.expire_at(p_db int2, p_key bytea, p_when int8, p_flags int2, p_now int8)
     RETURNS int4 LANGUAGE plpgsql AS $f$
     DECLARE r record;
     BEGIN
       SELECT expires_at INTO r FROM ${s}.kv WHERE db = p_db AND key = p_key FOR UPDATE;
       IF NOT FOUND OR NOT ${live('r')} THEN RETURN 0; END IF;
       IF p_flags & 1 <> 0 AND r.expires_at IS NOT NULL THEN RETURN 0; END IF;
       IF p_flags & 2 <> 0 AND r.expires_at IS NULL THEN RETURN 0; END IF;
       IF p_flags & 4 <> 0 AND (r.expires_at IS NULL OR p_when <= r.expires_at) THEN RETURN 0; END IF;
       IF p_flags & 8 <> 0 AND r.expires_at IS NOT NULL AND p_when >= r.expires_at THEN RETURN 0; END IF;
       IF p_when <= p_now THEN
         DELETE FROM ${s}.kv WHERE db = p_db AND key = p_key;
       ELSE
         UPDATE ${s}.kv SET expires_at = p_when, version = txid_current() WHERE db = p_db AND key = p_key;
       END IF;
       RETURN 1;
     END $f$`,
    // RENAME / RENAMENX (same db, p_nx = false / true) and MOVE (another db, p_nx = true)
    `CREATE OR REPLACE FUNCTION ${s}.move_key(p_sdb int2, p_src bytea, p_ddb int2, p_dst bytea, p_nx bool, p_now int8)
     RETURNS int4 LANGUAGE plpgsql AS $f$
     DECLARE r record; d record; c record; l record;
     BEGIN
       LOOP
         BEGIN
           ${lockPair};
           SELECT type, expires_at INTO r FROM ${s}.kv WHERE db = p_sdb AND key = p_src;
           IF NOT FOUND OR NOT ${live('r')} THEN RETURN -1; END IF;
           IF p_sdb = p_ddb AND p_src = p_dst THEN RETURN 1; END IF;
           SELECT expires_at INTO d FROM ${s}.kv WHERE db = p_ddb AND key = p_dst;
           IF FOUND AND ${live('d')} AND p_nx THEN RETURN 0; END IF;
           DELETE FROM ${s}.kv WHERE db = p_ddb AND key = p_dst;
           IF r.type = 0 THEN
             UPDATE ${s}.kv SET db = p_ddb, key = p_dst, version = txid_current() WHERE db = p_sdb AND key = p_src;
           ELSE
             PERFORM ${s}.copy_rows(p_sdb, p_src, p_ddb, p_dst, false);
             DELETE FROM ${s}.kv WHERE db = p_sdb AND key = p_src;
           END IF;
           RETURN 1;
         EXCEPTION WHEN unique_violation THEN
           NULL; -- another session created the destination meanwhile: decide again
         END;
       END LOOP;
     END $f$`,
    // COPY source destination [DB n] [REPLACE]: the value, the TTL and any child rows
    `CREATE OR REPLACE FUNCTION ${s}.copy_key(p_sdb int2, p_src bytea, p_ddb int2, p_dst bytea, p_replace bool, p_now int8)
     RETURNS int4 LANGUAGE plpgsql AS $f$
     DECLARE r record; d record; l record;
     BEGIN
       LOOP
         BEGIN
           ${lockPair};
           SELECT type, expires_at INTO r FROM ${s}.kv WHERE db = p_sdb AND key = p_src;
           IF NOT FOUND OR NOT ${live('r')} THEN RETURN 0; END IF;
           SELECT expires_at INTO d FROM ${s}.kv WHERE db = p_ddb AND key = p_dst;
           IF FOUND AND ${live('d')} AND NOT p_replace THEN RETURN 0; END IF;
           DELETE FROM ${s}.kv WHERE db = p_ddb AND key = p_dst;
           PERFORM ${s}.copy_rows(p_sdb, p_src, p_ddb, p_dst, true);
           RETURN 1;
         EXCEPTION WHEN unique_violation THEN
           NULL;
         END;
       END LOOP;
     END $f$`,
    // SWAPDB a b, atomically: writers wait on the table lock (plain reads do not), db -1 is
    // scratch. EXCLUSIVE, not SHARE ROW EXCLUSIVE: that one admits SELECT … FOR UPDATE, whose
    // transaction would then wait for our table lock while we wait for its row: a deadlock.
    // kv rows and child rows change db in place (no foreign key between them since migration 4).
    // WATCH marks (transactions/functions.ts) stay in their database: Redis touches a watched key when
    // it is live on either side, so a mark whose key is live on the other side goes (its
    // watchers' EXEC fails); an expired row that would land on a mark goes first (lazy expiry).
    `CREATE OR REPLACE FUNCTION ${s}.swap_db(p_a int2, p_b int2, p_now int8) RETURNS void LANGUAGE plpgsql AS $f$
     DECLARE c record; step int2[];
     BEGIN
       IF p_a = p_b THEN RETURN; END IF;
       LOCK TABLE ${s}.kv IN EXCLUSIVE MODE;
       FOR c IN SELECT * FROM ${s}.kv_children() LOOP
         EXECUTE format('LOCK TABLE %s IN EXCLUSIVE MODE', c.tbl);
       END LOOP;
       DELETE FROM ${s}.kv m WHERE m.db IN (p_a, p_b) AND ${watchMark('m')}
         AND EXISTS (SELECT 1 FROM ${s}.kv o WHERE o.db = CASE WHEN m.db = p_a THEN p_b ELSE p_a END AND o.key = m.key
           AND ${live('o')});
       DELETE FROM ${s}.kv o WHERE o.db IN (p_a, p_b) AND ${expired('o')} AND o.type <> ${kWatchMark}
         AND EXISTS (SELECT 1 FROM ${s}.kv m WHERE m.db = CASE WHEN o.db = p_a THEN p_b ELSE p_a END AND m.key = o.key
           AND ${watchMark('m')});
       FOREACH step SLICE 1 IN ARRAY ARRAY[[p_a, -1], [p_b, p_a], [-1, p_b]]::int2[] LOOP
         UPDATE ${s}.kv SET db = step[2], version = txid_current() WHERE db = step[1] AND type <> ${kWatchMark};
         FOR c IN SELECT * FROM ${s}.kv_children() LOOP
           EXECUTE format('UPDATE %s SET %s = $2 WHERE %s = $1', c.tbl, c.db_col, c.db_col) USING step[1], step[2];
         END LOOP;
       END LOOP;
     END $f$`,
    // the two-argument swap_db of PostRESP before WATCH marks moved them with the keys
    `DROP FUNCTION IF EXISTS ${s}.swap_db(int2, int2)`,
    // RANDOMKEY: a random row of a random heap block (TID range scan, 8 tries), else, for a
    // database too sparse in the table to be hit that way, a random offset into its keys
    `CREATE OR REPLACE FUNCTION ${s}.random_key(p_db int2, p_now int8) RETURNS bytea
     LANGUAGE plpgsql AS $f$
     DECLARE blocks int8; blk int8; k bytea; n int8;
     BEGIN
       blocks := pg_relation_size('${s}.kv') / current_setting('block_size')::int8;
       FOR i IN 1 .. CASE WHEN blocks > 0 THEN 8 ELSE 0 END LOOP
         blk := floor(random() * blocks)::int8;
         SELECT key INTO k FROM ${s}.kv
           WHERE ctid >= format('(%s,0)', blk)::tid AND ctid < format('(%s,0)', blk + 1)::tid
             AND db = p_db AND ${live('kv')}
           ORDER BY random() LIMIT 1;
         IF FOUND THEN RETURN k; END IF;
       END LOOP;
       SELECT count(*) INTO n FROM ${s}.kv WHERE db = p_db AND ${live('kv')};
       IF n = 0 THEN RETURN NULL; END IF;
       SELECT key INTO k FROM ${s}.kv WHERE db = p_db AND ${live('kv')} ORDER BY key
         OFFSET floor(random() * n)::int8 LIMIT 1;
       RETURN k;
     END $f$`,
    // MEMORY USAGE: value bytes of a string; for a collection, the stored size of its child rows
    // (small: a string value of at most 20 bytes, which Redis may hold as an integer)
    `CREATE OR REPLACE FUNCTION ${s}.key_size(p_db int2, p_key bytea, p_now int8, OUT type int2, OUT bytes int8,
       OUT small bytea)
     LANGUAGE plpgsql STABLE AS $f$
     DECLARE r record; c record; n int8;
     BEGIN
       SELECT kv.type, length(kv.value) AS len, kv.expires_at,
         CASE WHEN length(kv.value) <= 20 THEN kv.value END AS small INTO r
         FROM ${s}.kv WHERE db = p_db AND key = p_key;
       IF NOT FOUND OR NOT ${live('r')} THEN RETURN; END IF;
       type := r.type; bytes := coalesce(r.len, 0); small := r.small;
       IF r.type = 0 THEN RETURN; END IF;
       FOR c IN SELECT * FROM ${s}.kv_children() LOOP
         EXECUTE format('SELECT coalesce(sum(pg_column_size(t.*)), 0)::int8 FROM %s t WHERE %s = $1 AND %s = $2',
           c.tbl, c.db_col, c.key_col) INTO n USING p_db, p_key;
         bytes := bytes + n;
       END LOOP;
     END $f$`,
    // FLUSHALL: TRUNCATE (O(1), where DELETE is O(keys)), the marks put back as they were
    `CREATE OR REPLACE FUNCTION ${s}.flush_all() RETURNS void LANGUAGE plpgsql AS $f$
     DECLARE marks ${s}.kv[];
     BEGIN
       LOCK TABLE ${s}.kv IN ACCESS EXCLUSIVE MODE;
       SELECT array_agg(k) INTO marks FROM ${s}.kv k WHERE ${watchMark('k')};
       TRUNCATE ${s}.kv CASCADE;
       IF marks IS NOT NULL THEN INSERT INTO ${s}.kv SELECT * FROM unnest(marks); END IF;
     END $f$`,
  ];
}
