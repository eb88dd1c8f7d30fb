import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectClient } from './postgres/connect';
import { migrate } from './postgres/migrations';
import { startupOptions } from './postgres/schema';
import { freshSchema, testPgUrl } from '../../test/support/pg';
import { installFunctions } from '../engine/commands/install-functions';
import { PrimaryPg } from './primary-pg';
import { Sweeper } from './sweeper';

describe('Sweeper and WATCH marks', () => {
  it('deletes expired keys, keeps marks being watched, deletes marks abandoned for markTtlMs', async () => {
    const { schema, drop } = await freshSchema('sweep');
    const client = await connectClient(testPgUrl());
    const pg = new PrimaryPg(testPgUrl(), startupOptions('unlogged', schema));
    try {
      await migrate(testPgUrl(), { schema, storageMode: 'unlogged', convertStorageMode: false });
      await installFunctions(client, schema);
      const s = `"${schema}"`;
      const now = Date.now();
      await client.query(`INSERT INTO ${s}.kv (db, key, type, value, expires_at, version) VALUES
        (0, 'live', 0, 'v', NULL, 1), (0, 'ttl', 0, 'v', $1, 1), (0, 'gone', 0, 'v', $2, 1)`, [now + 60_000, now - 1000]);
      // a mark last watched two hours ago (its watcher's process died), one watched now
      await client.query(`SELECT * FROM ${s}.watch_keys('{0}', '{old}', $1)`, [now - 7_200_000]);
      await client.query(`SELECT * FROM ${s}.watch_keys('{0}', '{new}', $1)`, [now]);
      const sweeper = new Sweeper(pg, { log: () => undefined });
      await sweeper.cycle();
      assert.equal(sweeper.deleted, 1);
      assert.equal(sweeper.marksDeleted, 1);
      const rows = await client.query(`SELECT convert_from(key, 'UTF8') AS k, type FROM ${s}.kv ORDER BY key`);
      assert.deepEqual(rows.rows, [{ k: 'live', type: 0 }, { k: 'new', type: -1 }, { k: 'ttl', type: 0 }]);
    } finally {
      await pg.close();
      await client.end();
      await drop();
    }
  });

  it('returns the keys it deleted to a listening sink, only while it listens, in chunks', async () => {
    const { schema, drop } = await freshSchema('sweepkeys');
    const client = await connectClient(testPgUrl());
    const pg = new PrimaryPg(testPgUrl(), startupOptions('unlogged', schema));
    try {
      await migrate(testPgUrl(), { schema, storageMode: 'unlogged', convertStorageMode: false });
      await installFunctions(client, schema);
      const s = `"${schema}"`;
      const past = Date.now() - 1000;
      const insert = (db: number, key: string) =>
        client.query(`INSERT INTO ${s}.kv (db, key, type, value, expires_at, version) VALUES ($1, $2, 0, 'v', $3, 1)`, [db, Buffer.from(key), past]);
      await insert(0, 'quiet');
      let listening = false;
      const reports: string[] = [];
      const sweeper = new Sweeper(pg, { log: () => undefined, chunk: 2, expired: {
        listening: () => listening,
        report: (dbs, keys) => reports.push(keys.map((k, i) => `${dbs[i]}:${k.toString()}`).sort().join(' ')),
      } });
      await sweeper.cycle();
      assert.deepEqual(reports, []);
      listening = true;
      await insert(3, 'a');
      await insert(3, '');
      await insert(15, 'c');
      // a cycle stops after its time budget (25 ms), which a loaded machine can spend on one chunk
      for (let i = 0; i < 10 && sweeper.deleted < 4; i++) await sweeper.cycle();
      assert.equal(sweeper.deleted, 4);
      // a full chunk of 2, then the rest
      assert.deepEqual(reports.join(' ').split(' ').sort(), ['15:c', '3:', '3:a']);
      assert.equal(reports.length, 2);
    } finally {
      await pg.close();
      await client.end();
      await drop();
    }
  });
});
