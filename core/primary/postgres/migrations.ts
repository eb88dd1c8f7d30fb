// Versioned schema migrations, run by the primary at start (docs/postgres.md, docs/collections.md).
//
//   BEGIN
//   pg_advisory_xact_lock(hash('postresp.migrate:' || schema))  ← a second PostRESP starting now
//   schema + meta exist? create them (meta stays LOGGED)           waits here, then sees the
//   schema_version > ours → POSTRESP_ERR_SCHEMA_VERSION            committed result
//   storage_mode differs  → POSTRESP_ERR_STORAGE_MODE, or convert
//   apply migrations schema_version+1 … kSchemaVersion
//   COMMIT                                                         (DDL is transactional)
import type pg from 'pg';
import { connectClient, mapPgError } from './connect';
import { PostgresSetupError } from './errors';
import { quoteIdent, StorageMode, validateSchemaName, validateStorageMode } from './schema';

interface Migration {
  version: number;
  name: string;
  // s: quoted schema; persistence: 'UNLOGGED ' or '' for every data table it creates.
  statements(s: string, persistence: string): string[];
}

export const kMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'kv: one row per key',
    statements: (s, persistence) => [
      // fillfactor 70 leaves room on each page for the new version of an updated row, so
      // overwrites stay HOT (same page, no index insert).
      `CREATE ${persistence}TABLE ${s}.kv (
         db smallint NOT NULL,
         key bytea NOT NULL,
         type smallint NOT NULL DEFAULT 0,
         value bytea,
         expires_at bigint NULL,
         version bigint NOT NULL DEFAULT 1,
         PRIMARY KEY (db, key)
       ) WITH (fillfactor = 70)`,
      // For the expiry sweeper; partial, so keys without a TTL are not in it. HOT cost, measured
      // here (20k keys × 10 batched upserts of 1 KiB, docs/postgres.md): overwrites that keep
      // expires_at (plain SET on a key without TTL) stay 85% HOT with or without this index;
      // overwrites that change it (SET … EX, which refreshes the TTL) fall from 85% to 0% HOT,
      // the indexes grow 0.9 → 3.1 MB and rows/s drop 1.1–2.2× (noisy, shared machine): a
      // changed indexed column forbids HOT. A BRIN index keeps 85% (summarizing indexes allow HOT
      // since PG 16) but cannot find scattered expiries; an index-free sweeper would scan ctid
      // ranges instead.
      `CREATE INDEX kv_expires_at ON ${s}.kv (expires_at) WHERE expires_at IS NOT NULL`,
    ],
  },
  {
    version: 2,
    name: 'collections: hashes, lists, sets, zsets (docs/collections.md)',
    statements: (s, persistence) => [
      // Per-key metadata of a collection, kept in its kv row (locked and version-stamped by
      // every write anyway): card = element count (HLEN/SCARD/ZCARD/LLEN in O(1), negative
      // ranks); head = position of a list's first element (positions are head … head+card-1).
      `ALTER TABLE ${s}.kv ADD COLUMN card bigint, ADD COLUMN head bigint`,
      // h: a random int per element, indexed with its key: *SCAN cursors (stable while elements
      // come and go) and O(log n) random picks (SPOP, SRANDMEMBER, HRANDFIELD, ZRANDMEMBER).
      // fillfactor 70 keeps HSET overwrites HOT (value is not indexed).
      `CREATE ${persistence}TABLE ${s}.hashes (
         db smallint NOT NULL, key bytea NOT NULL, field bytea NOT NULL, value bytea NOT NULL,
         h integer NOT NULL DEFAULT (random() * 2147483647)::integer,
         PRIMARY KEY (db, key, field),
         FOREIGN KEY (db, key) REFERENCES ${s}.kv (db, key) ON DELETE CASCADE
       ) WITH (fillfactor = 70)`,
      `CREATE INDEX hashes_h ON ${s}.hashes (db, key, h)`,
      `CREATE ${persistence}TABLE ${s}.sets (
         db smallint NOT NULL, key bytea NOT NULL, member bytea NOT NULL,
         h integer NOT NULL DEFAULT (random() * 2147483647)::integer,
         PRIMARY KEY (db, key, member),
         FOREIGN KEY (db, key) REFERENCES ${s}.kv (db, key) ON DELETE CASCADE
       )`,
      `CREATE INDEX sets_h ON ${s}.sets (db, key, h)`,
      // Positions are contiguous, so LINDEX/LSET/LRANGE are index lookups at any offset and
      // LPUSH/RPUSH/LPOP/RPOP touch only the ends. LINSERT/LREM shift one side in one UPDATE:
      // DEFERRABLE lets positions collide inside that statement (checked at its end).
      `CREATE ${persistence}TABLE ${s}.lists (
         db smallint NOT NULL, key bytea NOT NULL, pos bigint NOT NULL, value bytea NOT NULL,
         PRIMARY KEY (db, key, pos) DEFERRABLE INITIALLY IMMEDIATE,
         FOREIGN KEY (db, key) REFERENCES ${s}.kv (db, key) ON DELETE CASCADE
       )`,
      `CREATE ${persistence}TABLE ${s}.zsets (
         db smallint NOT NULL, key bytea NOT NULL, member bytea NOT NULL, score float8 NOT NULL,
         h integer NOT NULL DEFAULT (random() * 2147483647)::integer,
         PRIMARY KEY (db, key, member),
         FOREIGN KEY (db, key) REFERENCES ${s}.kv (db, key) ON DELETE CASCADE
       )`,
      // (score, member) is Redis's order: ranges by score, by rank and by lex walk this index.
      `CREATE INDEX zsets_score ON ${s}.zsets (db, key, score, member)`,
      `CREATE INDEX zsets_h ON ${s}.zsets (db, key, h)`,
      // SET (and anything else that turns a collection key into a string) replaces the key: the
      // old family's rows go with it. The WHEN clause is evaluated without calling the function,
      // so string overwrites pay only the comparison.
      `CREATE FUNCTION ${s}.kv_type_changed() RETURNS trigger LANGUAGE plpgsql AS $f$
       BEGIN
         CASE OLD.type
           WHEN 1 THEN DELETE FROM ${s}.hashes WHERE db = OLD.db AND key = OLD.key;
           WHEN 2 THEN DELETE FROM ${s}.lists WHERE db = OLD.db AND key = OLD.key;
           WHEN 3 THEN DELETE FROM ${s}.sets WHERE db = OLD.db AND key = OLD.key;
           WHEN 4 THEN DELETE FROM ${s}.zsets WHERE db = OLD.db AND key = OLD.key;
           ELSE NULL;
         END CASE;
         RETURN NULL;
       END $f$`,
      `CREATE TRIGGER kv_type_changed AFTER UPDATE OF type ON ${s}.kv FOR EACH ROW
         WHEN (OLD.type <> NEW.type) EXECUTE FUNCTION ${s}.kv_type_changed()`,
    ],
  },
  {
    version: 3,
    name: 'kv: hash order for SCAN (64-bit cursors)',
    statements: (s) => [
      // A key's place in SCAN's order (core/engine/commands/keys/scan-cursor.ts): 64 bits from its
      // bytes, so a cursor is an unsigned 64-bit integer, as clients (redis-cli) parse it. The
      // element hash function of bytea (the one hash indexes and hash partitions store, so it
      // does not change between releases): 0.3 µs a key here, md5 2 µs. An SQL function Postgres
      // inlines: the index expression and the queries' kv_hash(key) plan as the same expression.
      // Expression index, no column: no table rewrite, no wider rows, overwrites stay HOT (key
      // does not change). The cost is each new key's index entry, in a random place: ~8 µs more
      // backend CPU per new key (100k into 200k: 1.7–1.9 s → 2.4–2.8 s), redis-benchmark -t set
      // -r 100000000 -P 16 -c 50: 30k → 22k rps (medians of 3); overwrites the same (-r 10000).
      `CREATE FUNCTION ${s}.kv_hash(bytea) RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE
         AS $f$ SELECT hash_array_extended(ARRAY[$1], 0) $f$`,
      `CREATE INDEX kv_scan ON ${s}.kv (db, ${s}.kv_hash(key))`,
    ],
  },
  {
    version: 4,
    name: 'collections: rows deleted by trigger, not by foreign key',
    statements: (s) => [
      // Every DELETE of a kv row fired the four ON DELETE CASCADE triggers, strings included
      // (~48 µs a row). A row trigger whose WHEN skips strings costs them one comparison; a
      // collection pays one function call and one DELETE in its family (docs/collections.md
      // "Deleting keys": measured against FKs and a statement trigger with a transition table).
      `DO $d$ DECLARE c record; BEGIN
         FOR c IN SELECT conrelid::regclass AS tbl, conname FROM pg_constraint
           WHERE contype = 'f' AND confrelid = '${s}.kv'::regclass LOOP
           EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', c.tbl, c.conname);
         END LOOP;
       END $d$`,
      // kv_type_changed deletes OLD's family rows: what a deleted key needs too
      `ALTER FUNCTION ${s}.kv_type_changed() RENAME TO kv_drop_rows`,
      `CREATE TRIGGER kv_deleted AFTER DELETE ON ${s}.kv FOR EACH ROW
         WHEN (OLD.type <> 0) EXECUTE FUNCTION ${s}.kv_drop_rows()`,
      // FLUSHALL is TRUNCATE kv CASCADE, which without foreign keys reaches kv alone. A TRUNCATE
      // naming kv and a child table too holds that table open ("cannot TRUNCATE … being used by
      // active queries in this session"): then DELETE, which finds the tables it truncated empty.
      `CREATE FUNCTION ${s}.kv_truncated() RETURNS trigger LANGUAGE plpgsql AS $f$
       BEGIN
         TRUNCATE ${s}.hashes, ${s}.lists, ${s}.sets, ${s}.zsets;
         RETURN NULL;
       EXCEPTION WHEN object_in_use THEN
         DELETE FROM ${s}.hashes; DELETE FROM ${s}.lists; DELETE FROM ${s}.sets; DELETE FROM ${s}.zsets;
         RETURN NULL;
       END $f$`,
      `CREATE TRIGGER kv_truncated AFTER TRUNCATE ON ${s}.kv FOR EACH STATEMENT EXECUTE FUNCTION ${s}.kv_truncated()`,
    ],
  },
  {
    version: 5,
    name: 'secondary indexes only their own queries can use (docs/postgres.md "Plans"); sorted-set pop bounds',
    statements: (s) => [
      // A point lookup (db, key[, field]) could be planned on an index sharing its (db, key)
      // prefix, filtering the rest, whenever the statistics said that prefix held one row: after
      // a storage-mode conversion GET read every key of db 0 through kv_scan per batch (11k
      // instead of 41k GET/s), and HGET/ZSCORE read a whole hash or sorted set whose key was not
      // among the sampled common values. A partial index serves only queries that imply its
      // predicate: `x IS NOT NULL` is implied by any strict comparison of x (SCAN's
      // kv_hash(key) >= $2, a random pick's h >= $3 or h >= 0), never by a key lookup, which can
      // then use the primary key alone. Every row satisfies the predicates (NOT NULL columns,
      // kv_hash is never null), so the indexes keep every row.
      `DROP INDEX ${s}.kv_scan`,
      `CREATE INDEX kv_scan ON ${s}.kv (db, ${s}.kv_hash(key)) WHERE ${s}.kv_hash(key) IS NOT NULL`,
      ...['hashes', 'sets', 'zsets'].flatMap((t) => [
        `DROP INDEX ${s}.${t}_h`,
        `CREATE INDEX ${t}_h ON ${s}.${t} (db, key, h) WHERE h IS NOT NULL`,
      ]),
      // ZSCORE read every member of the sorted set in this index (member is its last column,
      // score comes with it: an index-only scan looked cheap); range and rank queries say
      // score >= '-Infinity' (core/engine/commands/zset/sql.ts everyScore).
      `DROP INDEX ${s}.zsets_score`,
      `CREATE INDEX zsets_score ON ${s}.zsets (db, key, score, member) WHERE score IS NOT NULL`,
      // A sorted set's pop bounds: every member's (score, member) is ≥ zlo and ≤ zhi (NULL: no
      // bound). ZPOPMIN/ZPOPMAX start their index scan there: from the end of the set they walked
      // every entry popped before, dead until VACUUM (a 100k drain fell to 0.5× its first rate);
      // ZADD widens them. In the kv row every pop locks and updates anyway; NULL for other keys.
      `ALTER TABLE ${s}.kv ADD COLUMN zlo_score float8, ADD COLUMN zlo_member bytea,
         ADD COLUMN zhi_score float8, ADD COLUMN zhi_member bytea`,
    ],
  },
  {
    version: 6,
    name: 'message bus between instances (docs/messaging.md)',
    statements: (s) => [
      // UNLOGGED whatever the storage mode: what they hold describes live connections and
      // messages in flight, worthless after a crash, and a logged insert per large message would
      // add WAL to every PUBLISH of more than ~5.9 KB.
      // A live instance: its bus connection's backend, so any instance can tell a dead one (its
      // backend is no longer in pg_stat_activity) and forget what it wanted.
      `CREATE UNLOGGED TABLE ${s}.bus_instances (
         instance text PRIMARY KEY, pid integer NOT NULL, backend_start timestamptz NOT NULL)`,
      // What each instance's clients wait for (core/bus/interest.ts keys): nothing is notified
      // for a key no instance holds.
      `CREATE UNLOGGED TABLE ${s}.bus_interest (
         instance text NOT NULL, key bytea NOT NULL, PRIMARY KEY (instance, key))`,
      // Messages too large for a notification (8000 bytes); the notification carries the id.
      `CREATE UNLOGGED TABLE ${s}.bus_messages (
         id bigserial PRIMARY KEY, kind text NOT NULL, db integer NOT NULL, a bytea NOT NULL, b bytea NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now())`,
    ],
  },
  {
    version: 7,
    name: 'scripts and function libraries (docs/scripting.md)',
    statements: (s, persistence) => [
      // EVAL bodies and SCRIPT LOAD by SHA1: EVALSHA on any instance finds a body loaded on
      // another. Like the keyspace, they follow the storage mode (gone after a crash when unlogged).
      `CREATE ${persistence}TABLE ${s}.scripts (sha text PRIMARY KEY, body bytea NOT NULL)`,
      // FUNCTION LOAD's libraries, by name, with their code as loaded.
      `CREATE ${persistence}TABLE ${s}.function_libraries (name text PRIMARY KEY, code bytea NOT NULL)`,
      // One row: bumped by every library change; FCALL reads it in its first statement and a
      // process whose engine holds another version reloads the libraries (scripting/libraries.ts).
      `CREATE ${persistence}TABLE ${s}.function_version (one bool PRIMARY KEY DEFAULT true CHECK (one), version int8 NOT NULL)`,
      `INSERT INTO ${s}.function_version (version) VALUES (1)`,
    ],
  },
  {
    version: 8,
    name: 'streams: entries, nodes, consumer groups, consumers, pending entries (docs/streams.md)',
    statements: (s, persistence) => [
      // Ids are two unsigned 64-bit numbers; each is stored as a signed int8 minus 2^63
      // (core/engine/commands/stream/id.ts), so int8 order is id order over the whole range
      // (Redis accepts 18446744073709551615-18446744073709551615). The view streams_readable
      // shows them as Redis prints them.
      // The stream's own state, in its kv row (locked by every stream write anyway): the last id
      // (XADD's floor, kept when entries are deleted), entries-added, max-deleted-entry-id.
      // card = length.
      `ALTER TABLE ${s}.kv ADD COLUMN x_last_ms int8, ADD COLUMN x_last_seq int8, ADD COLUMN x_added int8,
         ADD COLUMN x_maxdel_ms int8, ADD COLUMN x_maxdel_seq int8`,
      `CREATE ${persistence}TABLE ${s}.stream_entries (
         db smallint NOT NULL, key bytea NOT NULL, ms int8 NOT NULL, seq int8 NOT NULL, fv bytea[] NOT NULL,
         PRIMARY KEY (db, key, ms, seq))`,
      // Redis's radix-tree nodes (listpacks of ≤ stream-node-max-entries entries), one row each,
      // keyed by the first id appended to it: MAXLEN/MINID ~ remove whole nodes only, and which
      // entries share a node decides what a ~ trim leaves (the 7.0 suite checks the lengths).
      // live = entries not deleted, total = entries ever appended (Redis counts deleted ones to
      // decide that a node is full), bytes ≈ field and value bytes, last = last id appended.
      `CREATE ${persistence}TABLE ${s}.stream_nodes (
         db smallint NOT NULL, key bytea NOT NULL, ms int8 NOT NULL, seq int8 NOT NULL,
         live int4 NOT NULL, total int4 NOT NULL, bytes int8 NOT NULL, last_ms int8 NOT NULL, last_seq int8 NOT NULL,
         PRIMARY KEY (db, key, ms, seq))`,
      // entries_read NULL: Redis's SCG_INVALID_ENTRIES_READ
      `CREATE ${persistence}TABLE ${s}.stream_groups (
         db smallint NOT NULL, key bytea NOT NULL, grp bytea NOT NULL, last_ms int8 NOT NULL, last_seq int8 NOT NULL,
         entries_read int8, PRIMARY KEY (db, key, grp))`,
      `CREATE ${persistence}TABLE ${s}.stream_consumers (
         db smallint NOT NULL, key bytea NOT NULL, grp bytea NOT NULL, consumer bytea NOT NULL, seen int8 NOT NULL,
         PRIMARY KEY (db, key, grp, consumer))`,
      // the pending entries list of each group; delivered = last delivery time (Unix ms)
      `CREATE ${persistence}TABLE ${s}.stream_pel (
         db smallint NOT NULL, key bytea NOT NULL, grp bytea NOT NULL, ms int8 NOT NULL, seq int8 NOT NULL,
         consumer bytea NOT NULL, delivered int8 NOT NULL, deliveries int8 NOT NULL,
         PRIMARY KEY (db, key, grp, ms, seq))`,
      // a consumer's own PEL (XREADGROUP with an id, XPENDING … consumer, DELCONSUMER): partial, so
      // a lookup by (db, key, grp[, id]) never plans on it (docs/postgres.md "Plans"); consumer =
      // implies the predicate
      `CREATE INDEX stream_pel_consumer ON ${s}.stream_pel (db, key, grp, consumer, ms, seq) WHERE consumer IS NOT NULL`,
      `CREATE VIEW ${s}.streams_readable AS
         SELECT db, key, (ms::numeric + 9223372036854775808)::text || '-' || (seq::numeric + 9223372036854775808)::text AS id, fv
         FROM ${s}.stream_entries`,
      // a key's rows go with it (kv_deleted, kv_type_changed: kv_drop_rows), FLUSHALL truncates
      `CREATE OR REPLACE FUNCTION ${s}.kv_drop_rows() RETURNS trigger LANGUAGE plpgsql AS $f$
       BEGIN
         CASE OLD.type
           WHEN 1 THEN DELETE FROM ${s}.hashes WHERE db = OLD.db AND key = OLD.key;
           WHEN 2 THEN DELETE FROM ${s}.lists WHERE db = OLD.db AND key = OLD.key;
           WHEN 3 THEN DELETE FROM ${s}.sets WHERE db = OLD.db AND key = OLD.key;
           WHEN 4 THEN DELETE FROM ${s}.zsets WHERE db = OLD.db AND key = OLD.key;
           WHEN 5 THEN
             DELETE FROM ${s}.stream_entries WHERE db = OLD.db AND key = OLD.key;
             DELETE FROM ${s}.stream_nodes WHERE db = OLD.db AND key = OLD.key;
             DELETE FROM ${s}.stream_groups WHERE db = OLD.db AND key = OLD.key;
             DELETE FROM ${s}.stream_consumers WHERE db = OLD.db AND key = OLD.key;
             DELETE FROM ${s}.stream_pel WHERE db = OLD.db AND key = OLD.key;
           ELSE NULL;
         END CASE;
         RETURN NULL;
       END $f$`,
      `CREATE OR REPLACE FUNCTION ${s}.kv_truncated() RETURNS trigger LANGUAGE plpgsql AS $f$
       BEGIN
         TRUNCATE ${s}.hashes, ${s}.lists, ${s}.sets, ${s}.zsets,
           ${s}.stream_entries, ${s}.stream_nodes, ${s}.stream_groups, ${s}.stream_consumers, ${s}.stream_pel;
         RETURN NULL;
       EXCEPTION WHEN object_in_use THEN
         DELETE FROM ${s}.hashes; DELETE FROM ${s}.lists; DELETE FROM ${s}.sets; DELETE FROM ${s}.zsets;
         DELETE FROM ${s}.stream_entries; DELETE FROM ${s}.stream_nodes; DELETE FROM ${s}.stream_groups;
         DELETE FROM ${s}.stream_consumers; DELETE FROM ${s}.stream_pel;
         RETURN NULL;
       END $f$`,
    ],
  },
  {
    version: 9,
    name: 'clients blocked on keys, in the order they blocked (docs/blocking.md)',
    statements: (s) => [
      // One row per (key, blocked call): a blocking pop serves only the first live waiter of its
      // key, so clients of every worker and instance are served in the order they blocked.
      // UNLOGGED whatever the storage mode: it describes live connections. pid and started name
      // the lane backend that registered it: a row whose backend is gone (its worker or instance
      // died) is skipped and deleted by the next pop that meets it (b_ahead).
      `CREATE SEQUENCE ${s}.blocked_waiters_seq`,
      `CREATE UNLOGGED TABLE ${s}.blocked_waiters (
         db smallint NOT NULL, key bytea NOT NULL, seq bigint NOT NULL, pid integer NOT NULL,
         started timestamptz NOT NULL, PRIMARY KEY (db, key, seq))`,
      `CREATE INDEX blocked_waiters_seq_idx ON ${s}.blocked_waiters (seq)`,
    ],
  },
  {
    version: 10,
    name: 'ACL users shared by every instance on the schema (docs/acl.md)',
    statements: (s) => [
      // LOGGED whatever the storage mode, and left alone by a mode conversion: users are
      // configuration, and an unlogged table emptied by a crash would leave a default user with
      // no password. One row per user: its ACL LIST line (`user <name> <rules>`).
      `CREATE TABLE ${s}.acl_users (name text PRIMARY KEY, line text NOT NULL)`,
      // One row, bumped by every change (the bus's U notification carries it): an instance holding
      // version n applies n+1 by its op (setuser, deluser, load), a gap by reloading every user.
      `CREATE TABLE ${s}.acl_version (one bool PRIMARY KEY DEFAULT true CHECK (one), version int8 NOT NULL, op text NOT NULL)`,
      `INSERT INTO ${s}.acl_version (version, op) VALUES (0, 'load')`,
    ],
  },
  {
    version: 11,
    name: 'XREADGROUP readers blocked in the order they blocked, per group (docs/streams.md)',
    statements: (s) => [
      // A blocked XREADGROUP '>' waits in the queue of (db, key, grp): readers of one group take
      // turns, other groups and the blocking pops (grp NULL) are not held by them.
      `ALTER TABLE ${s}.blocked_waiters ADD COLUMN grp bytea`,
    ],
  },
];

export const kSchemaVersion = kMigrations[kMigrations.length - 1]!.version;

export interface MigrateOptions {
  schema: string;
  storageMode: StorageMode;
  convertStorageMode: boolean;
  /** stop at this version (tests build an old schema to upgrade); default: the latest */
  version?: number;
}

export interface MigrateResult {
  schemaVersion: number;
  storageMode: StorageMode;
  created: boolean; // this call created the keyspace
  convertedFrom?: StorageMode; // set when this call changed the recorded mode
}

export async function migrate(url: string, opts: MigrateOptions): Promise<MigrateResult> {
  const schema = validateSchemaName(opts.schema);
  const mode = validateStorageMode(opts.storageMode);
  const client = await connectClient(url);
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`postresp.migrate:${schema}`]);
    const result = await migrateLocked(client, schema, mode, opts.convertStorageMode, opts.version ?? kSchemaVersion);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw mapPgError(err, url, `migrating schema "${schema}" on`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function migrateLocked(c: pg.Client, schema: string, mode: StorageMode, convert: boolean,
  target: number): Promise<MigrateResult> {
  const s = quoteIdent(schema);
  // Look before CREATE SCHEMA IF NOT EXISTS: that checks CREATE on the database even when the
  // schema exists, which a least-privilege role given an existing schema does not have.
  const exists = await c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (exists.rowCount === 0) await c.query(`CREATE SCHEMA ${s}`);
  const meta = await c.query<{ ok: boolean }>('SELECT to_regclass($1) IS NOT NULL AS ok', [`${s}.meta`]);
  const created = !meta.rows[0]!.ok;
  if (created) {
    // Always LOGGED, even in unlogged mode: after a crash the data may be gone, but the
    // recorded mode and version must not be.
    await c.query(`CREATE TABLE ${s}.meta (key text PRIMARY KEY, value text)`);
    await c.query(`INSERT INTO ${s}.meta VALUES ('schema_version', '0'), ('storage_mode', $1)`, [mode]);
  }
  const rows = (await c.query<{ key: string; value: string }>(`SELECT key, value FROM ${s}.meta`)).rows;
  const recorded = new Map(rows.map((r) => [r.key, r.value]));
  const current = Number(recorded.get('schema_version') ?? '0');
  const recordedMode = (recorded.get('storage_mode') ?? mode) as StorageMode;
  if (current > kSchemaVersion) {
    throw new PostgresSetupError('POSTRESP_ERR_SCHEMA_VERSION', `schema "${schema}" is at version ${current}, ` +
      `newer than this PostRESP understands (${kSchemaVersion}): upgrade PostRESP, or use another --schema`);
  }
  let convertedFrom: StorageMode | undefined;
  if (recordedMode !== mode) {
    await convertMode(c, schema, recordedMode, mode, convert);
    convertedFrom = recordedMode;
  }
  const persistence = mode === 'unlogged' ? 'UNLOGGED ' : '';
  for (const m of kMigrations.filter((x) => x.version > current && x.version <= target)) {
    for (const sql of m.statements(s, persistence)) await c.query(sql);
  }
  const version = Math.max(current, target);
  if (current < version) {
    await c.query(`UPDATE ${s}.meta SET value = $1 WHERE key = 'schema_version'`, [String(version)]);
  }
  if (convertedFrom !== undefined || (current > 0 && current < version)) await analyzeTables(c, schema);
  return { schemaVersion: version, storageMode: mode, created, ...(convertedFrom ? { convertedFrom } : {}) };
}

// A rewritten table (SET LOGGED/UNLOGGED) or a rebuilt index keeps the statistics it had, or
// none: after converting a one-key keyspace Postgres took kv for one row until autovacuum's next
// ANALYZE (a minute or more), and plans made meanwhile are cached by every lane (issue 12: GET
// 11k/s, then 41k/s once analyzed). The statements no longer depend on it (docs/postgres.md
// "Plans"), but estimates for everything else should be right from the start. ANALYZE samples
// at most 30,000 rows a table: well under a second even for large keyspaces.
async function analyzeTables(c: pg.Client, schema: string): Promise<void> {
  const tables = await c.query<{ relname: string }>(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname <> 'meta' ORDER BY c.relname`, [schema]);
  for (const { relname } of tables.rows) await c.query(`ANALYZE ${quoteIdent(schema)}."${relname.replace(/"/g, '""')}"`);
}

// logged ↔ logged-async differ only in the sessions' synchronous_commit: the recorded mode
// changes, no table is touched. To or from unlogged, every data table is rewritten under an
// ACCESS EXCLUSIVE lock (SET LOGGED also writes the whole table to WAL): other instances on
// this schema block until it commits.
async function convertMode(c: pg.Client, schema: string, from: StorageMode, to: StorageMode, convert: boolean): Promise<void> {
  const rewrite = (from === 'unlogged') !== (to === 'unlogged');
  if (!convert) {
    throw new PostgresSetupError('POSTRESP_ERR_STORAGE_MODE', `the keyspace in schema "${schema}" uses storage mode ` +
      `'${from}' but '${to}' was requested: start with --storage-mode ${from}, or add --convert-storage-mode to ` +
      (rewrite ? `convert it (rewrites every table: ALTER TABLE … SET ${to === 'unlogged' ? 'UNLOGGED' : 'LOGGED'})`
        : 'switch it (only the recorded mode changes)'));
  }
  const s = quoteIdent(schema);
  if (rewrite) {
    // Foreign keys (collection tables → kv, up to schema v3: converted before the upgrade) must
    // never join a logged and an unlogged table: going logged, referenced tables (kv) convert
    // first; going unlogged, they convert last.
    const tables = await c.query<{ relname: string }>(
      `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname <> 'meta' AND c.relname NOT LIKE 'bus\\_%' AND c.relname NOT LIKE 'acl\\_%' AND c.relname <> 'blocked_waiters'
        ORDER BY EXISTS (SELECT 1 FROM pg_constraint f WHERE f.confrelid = c.oid AND f.contype = 'f') = $2 DESC,
          c.relname`, [schema, to !== 'unlogged']);
    for (const { relname } of tables.rows) {
      await c.query(`ALTER TABLE ${s}."${relname.replace(/"/g, '""')}" SET ${to === 'unlogged' ? 'UNLOGGED' : 'LOGGED'}`);
    }
  }
  await c.query(`UPDATE ${s}.meta SET value = $1 WHERE key = 'storage_mode'`, [to]);
}
