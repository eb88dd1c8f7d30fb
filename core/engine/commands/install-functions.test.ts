import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectClient } from '../../primary/postgres/connect';
import { freshSchema, testPgUrl } from '../../../test/support/pg';
import { installFunctions } from './install-functions';
import { migrate } from '../../primary/postgres/migrations';

describe('installFunctions', () => {
  it('replaces an older function whose result type differs (42P13)', async () => {
    const { schema, drop } = await freshSchema('fn');
    const client = await connectClient(testPgUrl());
    try {
      await migrate(testPgUrl(), { schema, storageMode: 'unlogged', convertStorageMode: false });
      await client.query(`DROP FUNCTION IF EXISTS "${schema}".incr_by(int2, bytea, int8, int8)`);
      await client.query(`CREATE FUNCTION "${schema}".incr_by(p_db int2, p_key bytea, p_delta int8, p_now int8)
        RETURNS int LANGUAGE sql AS 'SELECT 1'`);
      await installFunctions(client, schema);
      const r = await client.query(`SELECT pg_get_function_result('"${schema}".incr_by(int2, bytea, int8, int8)'::regprocedure) AS res`);
      // OUT parameters: the new definition returns a record instead of the old int
      assert.equal(r.rows[0].res, 'record');
      // idempotent
      await installFunctions(client, schema);
    } finally {
      await client.end();
      await drop();
    }
  });
});
