// The ACL users' table through two bus links on one schema: the versioned write (the second of two
// writers judged against one version writes nothing), the U notification the other link hears,
// and no sequence gap (counted as lost) when a write loses.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrate } from './postgres/migrations';
import { startupOptions } from './postgres/schema';
import { freshSchema, testPgUrl } from '../../test/support/pg';
import { PgLink } from '../bus/pg-link';
import { AclStore } from './acl-store';

describe('AclStore: users in Postgres, versioned', { skip: process.env.DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  let schema: { schema: string; drop(): Promise<void> };
  let a: PgLink;
  let b: PgLink;
  const heard: (number | undefined)[] = [];
  const heardByA: (number | undefined)[] = [];
  before(async () => {
    schema = await freshSchema('acl_store');
    await migrate(testPgUrl(), { schema: schema.schema, storageMode: 'unlogged', convertStorageMode: false });
    const opts = { url: testPgUrl(), startupOptions: startupOptions('unlogged', schema.schema), schema: schema.schema, healthMs: 60_000, log: () => undefined };
    a = new PgLink(opts);
    b = new PgLink(opts);
    b.onAcl = (v) => heard.push(v);
    a.onAcl = (v) => heardByA.push(v);
    await a.start();
    await b.start();
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await schema?.drop();
  });

  test('a fresh schema: version 0, no users; a write judged against a moved version writes nothing', async () => {
    const sa = new AclStore(a);
    const sb = new AclStore(b);
    assert.deepEqual(await sa.read(), { version: 0, op: 'load', lines: [] });
    const lines = ['user default on nopass ~* &* +@all', 'user x on nopass +ping'];
    assert.equal(await sa.write(0, 'setuser', lines), true);
    assert.equal(await sb.write(0, 'deluser', ['user default on nopass ~* &* +@all']), false);
    const now = await sb.read();
    assert.equal(now.version, 1);
    assert.equal(now.op, 'setuser');
    assert.deepEqual(now.lines.sort(), lines);
    assert.equal(await sb.write(1, 'deluser', [lines[0]!]), true);
    assert.deepEqual(await sa.read(), { version: 2, op: 'deluser', lines: [lines[0]] });
    const deadline = Date.now() + 10_000;
    while ((heard.length < 1 || heardByA.length < 1) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(heard, [1], "b heard a's version 1 (not its own 2)");
    assert.deepEqual(heardByA, [2], "a heard b's version 2; b's write that lost was not a change");
    // b's lost write still notified: no gap in b's sequence for a to count as lost
    assert.equal(a.stats.lost + b.stats.lost, 0);
  });
});
