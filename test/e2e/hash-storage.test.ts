/**
 * Storage of the collection families (migration 2), seen from Postgres: the tables follow the
 * storage mode and --convert-storage-mode; SET over a collection, DEL, UNLINK, RENAME, MOVE,
 * COPY, SWAPDB, expiry, FLUSHDB and FLUSHALL leave no rows behind (migration 4: triggers, no
 * foreign keys); kv.card / kv.head stay equal to the rows under concurrent writers from many
 * clients on the same keys (lanes of two workers).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { migrate } from '../../core/primary/postgres/migrations';
import { freshSchema, testPgUrl, withPg } from '../support/pg';
import { RawClient, encode } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';

const kTables = ['hashes', 'lists', 'sets', 'zsets'];
let server: RunningServer;
const schema = uniqueSchema('coll');

before(async () => { server = await startServer(['--workers', '2', '--storage-mode', 'unlogged'], { schema }); });
after(async () => {
  await server.stop();
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
});

const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []) =>
  withPg(async (c) => (await c.query(sql, params)).rows as T[]);

async function rowCounts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of kTables) out[t] = Number((await q<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".${t}`))[0].n);
  return out;
}

/** every collection's kv.card equals its rows; every list's positions are head … head+card-1 */
async function consistent(): Promise<void> {
  const bad = await q(`
    SELECT k.key, k.type, k.card, k.head, c.n, c.lo, c.hi FROM "${schema}".kv k
    CROSS JOIN LATERAL (
      SELECT count(*) AS n, min(pos) AS lo, max(pos) AS hi FROM (
        SELECT NULL::int8 AS pos FROM "${schema}".hashes x WHERE k.type = 1 AND x.db = k.db AND x.key = k.key
        UNION ALL SELECT pos FROM "${schema}".lists x WHERE k.type = 2 AND x.db = k.db AND x.key = k.key
        UNION ALL SELECT NULL FROM "${schema}".sets x WHERE k.type = 3 AND x.db = k.db AND x.key = k.key
        UNION ALL SELECT NULL FROM "${schema}".zsets x WHERE k.type = 4 AND x.db = k.db AND x.key = k.key) r) c
    WHERE k.type <> 0 AND (k.card <> c.n OR c.n = 0 OR (k.type = 2 AND (c.lo <> k.head OR c.hi <> k.head + k.card - 1)))`);
  assert.deepEqual(bad, []);
}

/** child rows whose kv row is missing or of another type, per table */
async function orphans(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [t, type] of [['hashes', 1], ['lists', 2], ['sets', 3], ['zsets', 4]] as const) {
    out[t] = Number((await q<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".${t} c WHERE NOT EXISTS (
      SELECT 1 FROM "${schema}".kv k WHERE k.db = c.db AND k.key = c.key AND k.type = ${type})`))[0].n);
  }
  return out;
}

async function fill(c: RawClient, key: string): Promise<void> {
  await c.call('HSET', `${key}:h`, 'a', '1', 'b', '2');
  await c.call('RPUSH', `${key}:l`, 'a', 'b', 'c');
  await c.call('SADD', `${key}:s`, 'a', 'b');
  await c.call('ZADD', `${key}:z`, '1', 'a', '2', 'b');
}

describe('collection tables', () => {
  it('follow the storage mode, and --convert-storage-mode converts them with their data', async () => {
    const s = await freshSchema('coll_mode');
    try {
      const url = testPgUrl();
      await migrate(url, { schema: s.schema, storageMode: 'unlogged', convertStorageMode: false });
      const persistence = async () => Object.fromEntries((await q<{ relname: string; relpersistence: string }>(
        `SELECT c.relname, c.relpersistence FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relkind IN ('r', 'i')`, [s.schema])).map((r) => [r.relname, r.relpersistence]));
      let p = await persistence();
      for (const t of [...kTables, 'kv', 'hashes_h', 'sets_h', 'zsets_score', 'zsets_h', 'lists_pkey']) assert.equal(p[t], 'u', t);
      await withPg(async (c) => {
        await c.query(`INSERT INTO "${s.schema}".kv (db, key, type, card, head) VALUES (0, 'h', 1, 1, 0)`);
        await c.query(`INSERT INTO "${s.schema}".hashes (db, key, field, value) VALUES (0, 'h', 'f', 'v')`);
      });
      await migrate(url, { schema: s.schema, storageMode: 'logged', convertStorageMode: true });
      p = await persistence();
      for (const t of [...kTables, 'kv']) assert.equal(p[t], 'p', t);
      await migrate(url, { schema: s.schema, storageMode: 'unlogged', convertStorageMode: true });
      p = await persistence();
      for (const t of [...kTables, 'kv']) assert.equal(p[t], 'u', t);
      const rows = await q<{ value: Buffer }>(`SELECT value FROM "${s.schema}".hashes`);
      assert.equal(rows[0].value.toString(), 'v');
    } finally {
      await s.drop();
    }
  });

  it('SET over a collection key, DEL, FLUSHDB and FLUSHALL leave no rows behind', async () => {
    const c = await RawClient.connect(server.port);
    try {
      await c.call('FLUSHALL');
      await fill(c, 'k');
      assert.deepEqual(await rowCounts(), { hashes: 2, lists: 3, sets: 2, zsets: 2 });
      for (const t of ['h', 'l', 's', 'z']) assert.equal(await c.call('SET', `k:${t}`, 'string'), 'OK');
      assert.deepEqual(await rowCounts(), { hashes: 0, lists: 0, sets: 0, zsets: 0 });
      assert.equal(await c.call('GET', 'k:z'), 'string');
      await fill(c, 'k');
      assert.equal(await c.call('DEL', 'k:h', 'k:l', 'k:s', 'k:z'), 4);
      assert.deepEqual(await rowCounts(), { hashes: 0, lists: 0, sets: 0, zsets: 0 });
      await fill(c, 'k');
      await c.call('SELECT', '3');
      await fill(c, 'db3');
      assert.equal(await c.call('FLUSHDB'), 'OK');
      assert.deepEqual(await rowCounts(), { hashes: 2, lists: 3, sets: 2, zsets: 2 });
      await fill(c, 'db3');
      assert.equal(await c.call('FLUSHALL'), 'OK');
      assert.deepEqual(await rowCounts(), { hashes: 0, lists: 0, sets: 0, zsets: 0 });
    } finally {
      c.close();
    }
  });

  it('DEL, UNLINK, RENAME, MOVE, COPY, SWAPDB, expiry and the flushes leave no orphan rows', async () => {
    const c = await RawClient.connect(server.port);
    const none = { hashes: 0, lists: 0, sets: 0, zsets: 0 };
    try {
      await c.call('FLUSHALL');
      await fill(c, 'k');
      await c.call('SET', 'str', 'v');
      assert.equal(await c.call('RENAME', 'k:h', 'k:h2'), 'OK');
      assert.equal(await c.call('RENAME', 'k:s', 'k:z'), 'OK'); // over a zset: its rows go
      assert.equal(await c.call('MOVE', 'k:l', '1'), 1);
      assert.equal(await c.call('COPY', 'k:h2', 'k:h3'), 1);
      assert.equal(await c.call('RENAME', 'str', 'k:h3'), 'OK'); // a string over a hash
      assert.deepEqual(await orphans(), none);
      assert.deepEqual(await rowCounts(), { hashes: 2, lists: 3, sets: 2, zsets: 0 });
      assert.equal(await c.call('SWAPDB', '0', '1'), 'OK');
      assert.deepEqual(await c.call('LRANGE', 'k:l', '0', '-1'), ['a', 'b', 'c']);
      assert.equal(await c.call('SWAPDB', '0', '1'), 'OK');
      assert.deepEqual(await orphans(), none);
      assert.equal(await c.call('UNLINK', 'k:h2', 'nokey'), 1);
      assert.equal(await c.call('DEL', 'k:z', 'k:h3'), 2);
      assert.deepEqual(await rowCounts(), { hashes: 0, lists: 3, sets: 0, zsets: 0 });
      await fill(c, 'e');
      for (const t of ['h', 'l', 's', 'z']) assert.equal(await c.call('PEXPIRE', `e:${t}`, '1'), 1);
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(await c.call('EXISTS', 'e:h', 'e:l', 'e:s', 'e:z'), 0);
      const total = async () => Object.values(await rowCounts()).reduce((a, b) => a + b, 0);
      for (let i = 0; i < 100 && await total() > 3; i++) await new Promise((r) => setTimeout(r, 100)); // the sweeper
      assert.deepEqual(await rowCounts(), { hashes: 0, lists: 3, sets: 0, zsets: 0 });
      assert.deepEqual(await orphans(), none);
      await fill(c, 'k');
      await c.call('SELECT', '1');
      assert.equal(await c.call('FLUSHDB'), 'OK');
      assert.deepEqual(await rowCounts(), { hashes: 2, lists: 3, sets: 2, zsets: 2 });
      await c.call('SELECT', '0');
      assert.equal(await c.call('FLUSHALL'), 'OK');
      assert.deepEqual(await rowCounts(), none);
      assert.deepEqual(await q(`SELECT * FROM "${schema}".kv`), []);
    } finally {
      c.close();
    }
  });

  it('stay consistent with kv.card / kv.head under 8 concurrent clients on the same keys', async () => {
    const clients = await Promise.all(Array.from({ length: 8 }, () => RawClient.connect(server.port)));
    try {
      await clients[0].call('FLUSHALL');
      let pushed = 0;
      let popped = 0;
      await Promise.all(clients.map(async (c, n) => {
        const cmds: (string | Buffer)[][] = [];
        for (let i = 0; i < 150; i++) {
          const m = `m${(n * 31 + i * 7) % 40}`;
          switch (i % 6) {
            case 0: cmds.push(['SADD', 'cs', m, `x${i}`]); break;
            case 1: cmds.push(['SREM', 'cs', m]); break;
            case 2: cmds.push(['RPUSH', 'cl', m]); pushed++; break;
            case 3: cmds.push(['LPOP', 'cl']); break;
            case 4: cmds.push(['ZINCRBY', 'cz', '1', m]); break;
            default: cmds.push(['HINCRBY', 'ch', m, '1']);
          }
          if (i % 25 === 0) cmds.push(['SMOVE', 'cs', 'cs2', m], ['LMOVE', 'cl', 'cl2', 'LEFT', 'RIGHT']);
        }
        c.send(Buffer.concat(cmds.map((x) => encode(...x))));
        const replies = await c.read(cmds.length, 60000);
        replies.forEach((r, k) => {
          if (cmds[k][0] === 'LPOP' && r !== null) popped++;
          if (cmds[k][0] === 'LMOVE' && r !== null) popped++;
          assert.ok(typeof r !== 'object' || r === null || Array.isArray(r) || !('error' in r), `${cmds[k].join(' ')}: ${JSON.stringify(r)}`);
        });
      }));
      assert.equal(await clients[0].call('LLEN', 'cl'), pushed - popped);
      const zsum = ((await clients[0].call('ZRANGE', 'cz', '0', '-1', 'WITHSCORES')) as string[])
        .filter((_, i) => i % 2 === 1).reduce((a, b) => a + Number(b), 0);
      const hsum = ((await clients[0].call('HVALS', 'ch')) as string[]).reduce((a, b) => a + Number(b), 0);
      assert.equal(zsum, 8 * 25);
      assert.equal(hsum, 8 * 25);
      await consistent();
    } finally {
      for (const c of clients) c.close();
    }
  });
});
