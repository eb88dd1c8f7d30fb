import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectClient } from './postgres/connect';
import { migrate } from './postgres/migrations';
import { startupOptions } from './postgres/schema';
import { freshSchema, testPgUrl } from '../../test/support/pg';
import { installFunctions } from '../engine/commands/install-functions';
import { PrimaryPg } from './primary-pg';
import { EarlyAnalyze } from './early-analyze';

describe('EarlyAnalyze', () => {
  it('analyzes a fresh table once it has minRows changes, leaves the others, and stops once every table has statistics', async () => {
    const { schema, drop } = await freshSchema('early');
    const pg = new PrimaryPg(testPgUrl(), startupOptions('unlogged', schema));
    const s = `"${schema}"`;
    try {
      await migrate(testPgUrl(), { schema, storageMode: 'unlogged', convertStorageMode: false });
      const filler = await connectClient(testPgUrl());
      await installFunctions(filler, schema);
      await filler.query(`SELECT * FROM ${s}.z_add(0::int2, 'big'::bytea,
        ARRAY(SELECT convert_to('m' || i, 'UTF8') FROM generate_series(1, 3000) AS i),
        ARRAY(SELECT i::float8 FROM generate_series(1, 3000) AS i), 0::int2, $1::int8)`, [Date.now()]);
      // a backend's table counters reach pg_stat_user_tables when it ends (or after a second)
      await filler.end();
      const client = await connectClient(testPgUrl());
      try {
        const mods = async () => (await client.query(`SELECT n_mod_since_analyze::int AS n FROM pg_stat_user_tables
          WHERE schemaname = $1 AND relname = 'zsets'`, [schema])).rows[0]?.n ?? 0;
        for (let i = 0; i < 50 && await mods() < 3000; i++) await new Promise((r) => setTimeout(r, 100));
        const lines: string[] = [];
        const early = new EarlyAnalyze(pg, { schema, log: (l) => lines.push(l), minRows: 1000 });
        // kv, lists… have no rows: still waiting for them
        assert.equal(await early.pass(), false);
        assert.deepEqual(early.analyzed, ['zsets']);
        assert.match(lines[0], /analyzed .*\.zsets/);
        const stat = await client.query(`SELECT last_analyze IS NOT NULL AS done FROM pg_stat_user_tables
          WHERE schemaname = $1 AND relname = 'zsets'`, [schema]);
        assert.equal(stat.rows[0].done, true);
        const reltuples = await client.query(`SELECT reltuples FROM pg_class WHERE oid = '${s}.zsets'::regclass`);
        assert.ok(Number(reltuples.rows[0].reltuples) >= 2000);
        // a second pass analyzes nothing again
        await early.pass();
        assert.deepEqual(early.analyzed, ['zsets']);
        // minRows 0: every table left is due; then nothing is left and the pass says so
        const rest = new EarlyAnalyze(pg, { schema, log: () => undefined, minRows: 0 });
        assert.equal(await rest.pass(), true);
        assert.ok(rest.analyzed.includes('kv') && !rest.analyzed.includes('zsets') && !rest.analyzed.includes('meta'));
        const again = new EarlyAnalyze(pg, { schema, log: () => undefined, minRows: 0 });
        assert.equal(await again.pass(), true);
        assert.deepEqual(again.analyzed, []);
      } finally {
        await client.end();
      }
    } finally {
      await pg.close();
      await drop();
    }
  });
});
