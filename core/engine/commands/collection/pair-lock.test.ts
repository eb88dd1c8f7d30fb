import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectClient } from '../../../primary/postgres/connect';
import { migrate } from '../../../primary/postgres/migrations';
import { freshSchema, testPgUrl } from '../../../../test/support/pg';
import { installFunctions } from '../install-functions';

/** a schema with PostRESP's tables and functions, and a set `c` holding member 3 in db 0 */
async function setUp(prefix: string): Promise<{ schema: string; drop(): Promise<void> }> {
  const fresh = await freshSchema(prefix);
  await migrate(testPgUrl(), { schema: fresh.schema, storageMode: 'unlogged', convertStorageMode: false });
  const client = await connectClient(testPgUrl());
  try {
    await installFunctions(client, fresh.schema);
    await client.query(`SELECT "${fresh.schema}".s_add(0::int2, 'c'::bytea, ARRAY['3'::bytea], 0::int8)`);
  } finally {
    await client.end();
  }
  return fresh;
}

describe('pairLock (SMOVE, LMOVE, BLMOVE)', () => {
  it("is per schema: a move held open on one schema does not block the same keys' move on another", async () => {
    const a = await setUp('pair_a');
    const b = await setUp('pair_b');
    const holder = await connectClient(testPgUrl());
    const mover = await connectClient(testPgUrl());
    try {
      await holder.query('BEGIN');
      const moved = await holder.query(`SELECT status FROM "${a.schema}".s_move(0::int2, 'c'::bytea, 'b'::bytea, '3'::bytea, 0::int8)`);
      assert.equal(moved.rows[0].status, 1);
      // the holder's transaction keeps its advisory locks on (0, c) and (0, b) until it ends
      await mover.query("SET lock_timeout = '2s'");
      const other = await mover.query(`SELECT status FROM "${b.schema}".s_move(0::int2, 'c'::bytea, 'b'::bytea, '3'::bytea, 0::int8)`);
      assert.equal(other.rows[0].status, 1);
      // on the same schema it does wait: the lock is still a lock
      await assert.rejects(mover.query(`SELECT status FROM "${a.schema}".s_move(0::int2, 'b'::bytea, 'c'::bytea, '3'::bytea, 0::int8)`),
        /lock timeout/);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
      await mover.end();
      await a.drop();
      await b.drop();
    }
  });
});
