/**
 * The read cache's default (docs/cache.md "On by default"): with no --cache an instance caches
 * while it is the only one serving its schema, and says so in its log; a second instance started
 * the same way turns it off for both, with a log line on each, and its writes are seen by the
 * first one's GETs; SQL written to the tables behind a caching instance is not seen by a GET of a
 * key it holds (the documented rule), and a NOTIFY on the channel the first log line names (what
 * an operator sends before writing the tables with SQL) turns the cache off, after which it is.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { RawClient } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';

const schemas: string[] = [];
after(async () => {
  await withPg(async (c) => {
    for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  }).catch(() => undefined);
});

async function cacheInfo(port: number): Promise<Record<string, number>> {
  const c = await RawClient.connect(port);
  const text = String(await c.call('INFO', 'cache'));
  c.close();
  return Object.fromEntries([...text.matchAll(/^(cache_\w+):([\d.]+)/gm)].map((m) => [m[1], Number(m[2])]));
}

/** GETs k until one is a hit (a key is kept on its second miss) */
async function cached(c: RawClient, port: number, key: string, value: string): Promise<void> {
  const h0 = (await cacheInfo(port)).cache_hits;
  for (let i = 0; i < 4; i++) assert.equal(await c.call('GET', key), value);
  assert.ok((await cacheInfo(port)).cache_hits > h0, 'the key is served from the cache');
}

async function until(what: string, f: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await f()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`not within 10 s: ${what}`);
}

describe('read cache default', () => {
  it('is on when alone (log line), and a second instance with the default turns it off for both, its writes seen', async () => {
    const schema = uniqueSchema('cachedef');
    schemas.push(schema);
    const a = await startServer(['--workers', '2', '--storage-mode', 'unlogged'], { schema });
    let b: RunningServer | undefined;
    try {
      const c = await RawClient.connect(a.port);
      assert.deepEqual(await c.call('CONFIG', 'GET', 'cache'), ['cache', 'exclusive']);
      assert.match(a.output(), new RegExp(`read cache on: the only instance serving schema ${schema}`));
      assert.equal((await cacheInfo(a.port)).cache_enabled, 1);
      await c.call('SET', 'k', 'a');
      await cached(c, a.port, 'k', 'a');

      b = await startServer(['--workers', '1', '--storage-mode', 'unlogged'], { schema });
      // the newcomer is ready only once the owner let go: no wait needed
      assert.equal((await cacheInfo(a.port)).cache_enabled, 0, 'the first instance stopped caching');
      assert.equal((await cacheInfo(b.port)).cache_enabled, 0, 'the newcomer does not cache');
      assert.match(a.output(), new RegExp(`read cache off: another instance serves schema ${schema} now`));
      assert.match(b.output(), new RegExp(`read cache off: another instance caches schema ${schema}`));
      const cb = await RawClient.connect(b.port);
      for (let i = 0; i < 5; i++) {
        await cb.call('SET', 'k', `b${i}`);
        assert.equal(await c.call('GET', 'k'), `b${i}`);
      }
      cb.close();
      c.close();
    } finally {
      await b?.stop();
      await a.stop();
    }
  });

  it('a NOTIFY on the channel named in the log turns it off, so SQL written after it is seen', async () => {
    const schema = uniqueSchema('cachedef');
    schemas.push(schema);
    const a = await startServer(['--workers', '1', '--storage-mode', 'unlogged'], { schema });
    try {
      const channel = /NOTIFY "(postresp_cache_[0-9a-f]+)"/.exec(a.output())?.[1];
      assert.ok(channel !== undefined, `the log names the channel:\n${a.output()}`);
      const c = await RawClient.connect(a.port);
      await c.call('SET', 'k', 'old');
      await cached(c, a.port, 'k', 'old');
      // the documented rule (docs/cache.md "SQL behind a running instance"): SQL written while the
      // instance caches is not seen by a GET of a key it holds
      const sql = (v: string) => withPg(async (pg) => void (await pg.query(`UPDATE "${schema}".kv SET value = $1 WHERE db = 0 AND key = 'k'`, [Buffer.from(v)])));
      await sql('behind');
      assert.equal(await c.call('GET', 'k'), 'old', 'the entry still answers');
      await withPg(async (pg) => {
        await pg.query(`NOTIFY "${channel}"`);
      });
      await until('the cache turned off', async () => (await cacheInfo(a.port)).cache_enabled === 0);
      assert.equal(await c.call('GET', 'k'), 'behind', 'off: the GET reads Postgres');
      await sql('new');
      assert.equal(await c.call('GET', 'k'), 'new');
      assert.match(a.output(), new RegExp(`read cache off: another instance serves schema ${schema} now`));
      c.close();
    } finally {
      await a.stop();
    }
  });
});
