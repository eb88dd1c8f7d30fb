/**
 * `unlogged` mode: keys survive a clean restart of both PostRESP and Postgres; after a Postgres
 * crash they are gone, as documented (Postgres empties UNLOGGED tables in crash recovery) — the
 * second check proves the first ran against really unlogged tables.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient, encode } from '../e2e/resp-client';
import type { RunningServer } from '../e2e/start-server';
import { isError, ownPostgres, readAll, sleep, startPostresp, uniqueSchema, type OwnPostgres } from './support';

const kKeys = 5000;
const keyOf = (i: number) => `u${i}`;
const valueOf = (i: number) => `value-${i}-${'y'.repeat(i % 200)}`;

let own: OwnPostgres;
let server: RunningServer | undefined;
const schema = uniqueSchema('unlogged');
before(async () => { own = await ownPostgres('unlogged'); });
after(async () => {
  await server?.stop();
  await own?.cleanup();
});

async function loadKeys(port: number): Promise<void> {
  const c = await RawClient.connect(port);
  for (let i = 0; i < kKeys; i += 250) {
    const n = Math.min(250, kKeys - i);
    c.send(Buffer.concat(Array.from({ length: n }, (_, j) => encode('SET', keyOf(i + j), valueOf(i + j)))));
    const replies = await c.read(n);
    assert.ok(replies.every((r) => r === 'OK'), JSON.stringify(replies.find((r) => r !== 'OK')));
  }
  assert.equal(await c.call('SELECT', '7'), 'OK');
  assert.equal(await c.call('SET', 'in-db-7', 'seven'), 'OK');
  c.close();
}

describe('unlogged mode', () => {
  it('keeps every key across a clean restart of PostRESP and Postgres', async (t) => {
    server = await startPostresp(own.pg, 'unlogged', schema);
    await loadKeys(server.port);
    assert.equal(await server.stop(), 0, 'PostRESP did not exit cleanly');
    server = undefined;
    await own.pg.stop();
    await own.restart();
    server = await startPostresp(own.pg, 'unlogged', schema);
    const keys = Array.from({ length: kKeys }, (_, i) => keyOf(i));
    const found = await readAll(server.port, keys);
    const missing = keys.filter((k, i) => found.get(k) !== valueOf(i));
    const c = await RawClient.connect(server.port);
    await c.call('SELECT', '7');
    const seven = await c.call('GET', 'in-db-7');
    const dbsize = await c.call('DBSIZE');
    c.close();
    t.diagnostic(`unlogged, clean restart: ${kKeys - missing.length} of ${kKeys} keys back, db 7 holds ${dbsize} key(s)`);
    assert.deepEqual(missing.slice(0, 5), [], `${missing.length} keys missing after a clean restart`);
    assert.equal(seven, 'seven');
  });

  it('loses them after a Postgres crash (documented: the tables really are UNLOGGED)', async (t) => {
    assert.ok(server);
    process.kill(own.pg.pid, 'SIGKILL');
    await sleep(200);
    await own.restart();
    const c = await RawClient.connect(server.port);
    const t0 = Date.now();
    let size = await c.call('DBSIZE');
    while (isError(size) && Date.now() - t0 < 30000) {
      await sleep(100);
      size = await c.call('DBSIZE');
    }
    const v = await c.call('GET', keyOf(1));
    c.close();
    t.diagnostic(`after kill -9 and crash recovery: DBSIZE ${JSON.stringify(size)}, GET ${keyOf(1)} → ${JSON.stringify(v)}`);
    assert.equal(size, 0);
    assert.equal(v, null);
  });
});
