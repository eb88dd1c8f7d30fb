import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { freshSchema, testPgUrl, withPg } from '../../../test/support/pg';
import { PostgresSetupError } from './errors';
import { kSchemaVersion, migrate } from './migrations';
import { sessionSettings, startupOptions, StorageMode } from './schema';

const url = testPgUrl();
const drops: Array<() => Promise<void>> = [];
after(async () => { for (const d of drops) await d(); });

async function schemaFor(prefix: string): Promise<string> {
  const s = await freshSchema(prefix);
  drops.push(s.drop);
  return s.schema;
}

// relpersistence: 'p' permanent (logged), 'u' unlogged; relfilenode changes when a table is rewritten.
async function relations(schema: string): Promise<Map<string, { persistence: string; filenode: number }>> {
  return withPg(async (c) => {
    const res = await c.query<{ relname: string; relpersistence: string; relfilenode: number }>(
      `SELECT c.relname, c.relpersistence, c.relfilenode FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1`, [schema]);
    return new Map(res.rows.map((r) => [r.relname, { persistence: r.relpersistence, filenode: r.relfilenode }]));
  });
}

async function meta(schema: string): Promise<Record<string, string>> {
  return withPg(async (c) => Object.fromEntries(
    (await c.query(`SELECT key, value FROM "${schema}".meta`)).rows.map((r) => [r.key, r.value])));
}

const opts = (schema: string, storageMode: StorageMode, convertStorageMode = false) => ({ schema, storageMode, convertStorageMode });

describe('migrate', () => {
  it('creates logged tables and records the mode', async () => {
    const schema = await schemaFor('mig_logged');
    const res = await migrate(url, opts(schema, 'logged'));
    assert.deepEqual(res, { schemaVersion: kSchemaVersion, storageMode: 'logged', created: true });
    const rels = await relations(schema);
    for (const name of ['kv', 'kv_pkey', 'kv_expires_at', 'meta']) assert.equal(rels.get(name)?.persistence, 'p', name);
    assert.deepEqual(await meta(schema), { schema_version: String(kSchemaVersion), storage_mode: 'logged' });
    const fillfactor = await withPg(async (c) => (await c.query(
      `SELECT reloptions FROM pg_class WHERE oid = $1::regclass`, [`"${schema}".kv`])).rows[0].reloptions);
    assert.deepEqual(fillfactor, ['fillfactor=70']);
  });

  it('creates UNLOGGED data tables in unlogged mode, meta stays logged', async () => {
    const schema = await schemaFor('mig_unlogged');
    await migrate(url, opts(schema, 'unlogged'));
    const rels = await relations(schema);
    assert.equal(rels.get('kv')?.persistence, 'u');
    assert.equal(rels.get('kv_expires_at')?.persistence, 'u');
    assert.equal(rels.get('meta')?.persistence, 'p');
  });

  it('is idempotent', async () => {
    const schema = await schemaFor('mig_again');
    await migrate(url, opts(schema, 'logged-async'));
    const before = await relations(schema);
    const res = await migrate(url, opts(schema, 'logged-async'));
    assert.deepEqual(res, { schemaVersion: kSchemaVersion, storageMode: 'logged-async', created: false });
    assert.deepEqual(await relations(schema), before);
  });

  it('refuses a different mode without --convert-storage-mode', async () => {
    const schema = await schemaFor('mig_refuse');
    await migrate(url, opts(schema, 'logged'));
    await assert.rejects(migrate(url, opts(schema, 'unlogged')), (err: PostgresSetupError) => {
      assert.equal(err.code, 'POSTRESP_ERR_STORAGE_MODE');
      assert.equal(err.message, `the keyspace in schema "${schema}" uses storage mode 'logged' but 'unlogged' was ` +
        'requested: start with --storage-mode logged, or add --convert-storage-mode to convert it (rewrites every ' +
        'table: ALTER TABLE … SET UNLOGGED)');
      return true;
    });
    await assert.rejects(migrate(url, opts(schema, 'logged-async')), /only the recorded mode changes/);
    assert.equal((await meta(schema)).storage_mode, 'logged');
  });

  it('converts unlogged → logged → unlogged with the flag', async () => {
    const schema = await schemaFor('mig_convert');
    await migrate(url, opts(schema, 'unlogged'));
    await withPg(async (c) => c.query(`INSERT INTO "${schema}".kv (db, key, value) VALUES (0, 'k', 'v')`));
    const res = await migrate(url, opts(schema, 'logged', true));
    assert.equal(res.convertedFrom, 'unlogged');
    let rels = await relations(schema);
    assert.equal(rels.get('kv')?.persistence, 'p');
    assert.equal(rels.get('kv_pkey')?.persistence, 'p');
    assert.equal((await meta(schema)).storage_mode, 'logged');
    await migrate(url, opts(schema, 'unlogged', true));
    rels = await relations(schema);
    assert.equal(rels.get('kv')?.persistence, 'u');
    const value = await withPg(async (c) => (await c.query(`SELECT value FROM "${schema}".kv`)).rows[0].value);
    assert.equal(value.toString(), 'v');
  });

  it('leaves the statistics of converted and upgraded tables current (ANALYZE)', async () => {
    const schema = await schemaFor('mig_stats');
    const s = `"${schema}"`;
    const reltuples = () => withPg(async (c) => (await c.query(`SELECT c.relname, c.reltuples::int AS n FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname IN ('kv', 'hashes') ORDER BY 1`,
    [schema])).rows.map((r) => `${r.relname} ${r.n}`));
    // statistics taken with one key, then 2000 more: what a logged keyspace with one key looked like when converted
    await migrate(url, { ...opts(schema, 'logged'), version: 4 });
    await withPg(async (c) => {
      await c.query(`INSERT INTO ${s}.kv (db, key, type, value) VALUES (0, 'one', 0, 'v')`);
      await c.query(`ANALYZE ${s}.kv`);
      await c.query(`INSERT INTO ${s}.kv (db, key, type, value) SELECT 0, convert_to('k' || i, 'UTF8'), 0, 'v' FROM generate_series(1, 2000) i`);
    });
    await migrate(url, opts(schema, 'unlogged', true)); // converted and upgraded to the latest version
    assert.deepEqual(await reltuples(), ['hashes 0', 'kv 2001']);
    await withPg(async (c) => {
      await c.query(`INSERT INTO ${s}.hashes (db, key, field, value) SELECT 0, 'one', convert_to('f' || i, 'UTF8'), 'v' FROM generate_series(1, 300) i`);
      await c.query(`DELETE FROM ${s}.kv WHERE key <> 'one'`);
    });
    await migrate(url, opts(schema, 'logged', true));
    assert.deepEqual(await reltuples(), ['hashes 300', 'kv 1']);
  });

  it('switches logged ↔ logged-async without rewriting tables', async () => {
    const schema = await schemaFor('mig_async');
    await migrate(url, opts(schema, 'logged'));
    const before = await relations(schema);
    const res = await migrate(url, opts(schema, 'logged-async', true));
    assert.equal(res.convertedFrom, 'logged');
    assert.deepEqual(await relations(schema), before); // same relfilenodes: nothing rewritten
    assert.equal((await meta(schema)).storage_mode, 'logged-async');
  });

  it('lets exactly one of several concurrent starts create the keyspace', async () => {
    const schema = await schemaFor('mig_race');
    await withPg(async (c) => c.query(`DROP SCHEMA "${schema}"`)); // race on CREATE SCHEMA too
    const results = await Promise.all(Array.from({ length: 4 }, () => migrate(url, opts(schema, 'logged'))));
    assert.equal(results.filter((r) => r.created).length, 1);
    assert.ok(results.every((r) => r.schemaVersion === kSchemaVersion));
  });

  it('upgrades a v2 keyspace: SCAN hash index, foreign keys replaced by triggers, rows kept', async () => {
    const schema = await schemaFor('mig_v2');
    const s = `"${schema}"`;
    assert.equal((await migrate(url, { ...opts(schema, 'unlogged'), version: 2 })).schemaVersion, 2);
    const fks = () => withPg(async (c) => (await c.query(`SELECT count(*)::int AS n FROM pg_constraint
      WHERE contype = 'f' AND confrelid = '${s}.kv'::regclass`)).rows[0].n);
    assert.equal(await fks(), 4);
    const counts = () => withPg(async (c) => (await c.query(`SELECT (SELECT count(*) FROM ${s}.kv)::int AS kv,
      (SELECT count(*) FROM ${s}.hashes)::int AS h, (SELECT count(*) FROM ${s}.lists)::int AS l,
      (SELECT count(*) FROM ${s}.sets)::int AS s, (SELECT count(*) FROM ${s}.zsets)::int AS z`)).rows[0]);
    await withPg(async (c) => {
      await c.query(`INSERT INTO ${s}.kv (db, key, type, value, card, head) VALUES (0, 'str', 0, 'v', NULL, NULL),
        (0, 'h', 1, NULL, 2, 0), (0, 'l', 2, NULL, 1, 0), (0, 's', 3, NULL, 1, 0), (0, 'z', 4, NULL, 1, 0)`);
      await c.query(`INSERT INTO ${s}.hashes (db, key, field, value) VALUES (0, 'h', 'f', 'v'), (0, 'h', 'g', 'w')`);
      await c.query(`INSERT INTO ${s}.lists (db, key, pos, value) VALUES (0, 'l', 0, 'a')`);
      await c.query(`INSERT INTO ${s}.sets (db, key, member) VALUES (0, 's', 'm')`);
      await c.query(`INSERT INTO ${s}.zsets (db, key, member, score) VALUES (0, 'z', 'm', 1)`);
    });
    const res = await migrate(url, opts(schema, 'unlogged'));
    assert.deepEqual(res, { schemaVersion: kSchemaVersion, storageMode: 'unlogged', created: false });
    assert.equal(await fks(), 0);
    assert.deepEqual(await counts(), { kv: 5, h: 2, l: 1, s: 1, z: 1 });
    assert.equal((await relations(schema)).get('kv_scan')?.persistence, 'u');
    await withPg(async (c) => {
      const triggers = (await c.query(`SELECT tgname FROM pg_trigger WHERE tgrelid = '${s}.kv'::regclass
        AND NOT tgisinternal ORDER BY tgname`)).rows.map((r) => r.tgname);
      assert.deepEqual(triggers, ['kv_deleted', 'kv_truncated', 'kv_type_changed']);
      // SCAN's order: every key once, from the index
      const scan = `SELECT key FROM ${s}.kv WHERE db = 0 AND ${s}.kv_hash(key) >= -9223372036854775808 ORDER BY ${s}.kv_hash(key), key`;
      assert.equal((await c.query(scan)).rowCount, 5);
      await c.query('SET enable_seqscan = off');
      assert.match((await c.query(`EXPLAIN ${scan}`)).rows.map((r) => r['QUERY PLAN']).join('\n'), /kv_scan/);
      await c.query(`DELETE FROM ${s}.kv WHERE key IN ('str', 'h')`); // a string and a hash: the hash's rows go
      await c.query(`UPDATE ${s}.kv SET type = 0, value = 'x' WHERE key = 'l'`); // overwrite by a string
    });
    assert.deepEqual(await counts(), { kv: 3, h: 0, l: 0, s: 1, z: 1 });
    await withPg(async (c) => c.query(`TRUNCATE ${s}.kv CASCADE`)); // FLUSHALL
    assert.deepEqual(await counts(), { kv: 0, h: 0, l: 0, s: 0, z: 0 });
    await withPg(async (c) => {
      await c.query(`INSERT INTO ${s}.kv (db, key, type, card, head) VALUES (0, 'h', 1, 1, 0), (0, 's', 3, 1, 0)`);
      await c.query(`INSERT INTO ${s}.hashes (db, key, field, value) VALUES (0, 'h', 'f', 'v')`);
      await c.query(`INSERT INTO ${s}.sets (db, key, member) VALUES (0, 's', 'm')`);
      await c.query(`TRUNCATE ${s}.kv, ${s}.hashes`); // the trigger cannot truncate hashes again: it deletes
    });
    assert.deepEqual(await counts(), { kv: 0, h: 0, l: 0, s: 0, z: 0 });
    await migrate(url, opts(schema, 'logged', true)); // conversion without foreign keys
    const rels = await relations(schema);
    for (const t of ['kv', 'kv_scan', 'hashes', 'lists', 'sets', 'zsets']) assert.equal(rels.get(t)?.persistence, 'p', t);
  });

  it('refuses a schema newer than the code', async () => {
    const schema = await schemaFor('mig_newer');
    await migrate(url, opts(schema, 'logged'));
    await withPg(async (c) => c.query(`UPDATE "${schema}".meta SET value = '999' WHERE key = 'schema_version'`));
    await assert.rejects(migrate(url, opts(schema, 'logged')), { code: 'POSTRESP_ERR_SCHEMA_VERSION' });
  });

  it('validates the schema name and mode before connecting', async () => {
    for (const bad of ['Postresp', '1abc', 'a-b', 'x'.repeat(64), '', 'a"b']) {
      await assert.rejects(migrate('postgres://nowhere.invalid/x', opts(bad, 'logged')), { code: 'POSTRESP_ERR_SCHEMA_NAME' });
    }
    await assert.rejects(migrate(url, opts('ok', 'fast' as StorageMode)), { code: 'POSTRESP_ERR_STORAGE_MODE' });
  });
});

describe('session settings', () => {
  it('sets synchronous_commit by mode and the search_path', async () => {
    assert.deepEqual(sessionSettings('logged', 'p1'),
      ['SET search_path TO "p1"', 'SET synchronous_commit TO on', 'SET jit TO off']);
    assert.equal(sessionSettings('logged-async')[1], 'SET synchronous_commit TO off');
    assert.equal(sessionSettings('unlogged')[1], 'SET synchronous_commit TO off');
    assert.equal(startupOptions('logged', 'p1'), '-c search_path=p1 -c synchronous_commit=on -c jit=off ' +
      '-c plan_cache_mode=force_generic_plan -c enable_seqscan=off -c enable_sort=off');
  });

  it('applies on a real connection', async () => {
    const schema = await schemaFor('mig_session');
    await migrate(url, opts(schema, 'logged-async'));
    await withPg(async (c) => {
      for (const sql of sessionSettings('logged-async', schema)) await c.query(sql);
      assert.equal((await c.query('SHOW synchronous_commit')).rows[0].synchronous_commit, 'off');
      assert.equal((await c.query('SELECT count(*)::int AS n FROM kv')).rows[0].n, 0);
    });
  });
});
