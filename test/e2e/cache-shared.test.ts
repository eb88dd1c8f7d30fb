/**
 * --cache shared (docs/cache.md): two instances on one schema both cache, and what one writes
 * reaches the other's cache within the notification delay (measured here, asserted loosely: a
 * stale read past a few seconds is a lost invalidation, not a slow one). Every kind of write
 * crosses (SET, MSET, DEL, FLUSHALL); an instance that does not tell its writes (--cache off)
 * turns the shared caches off while it runs, and they come back once it left; a bus link killed
 * under an instance turns its cache off until the link is back, and the writes made meanwhile
 * are seen.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';

const schema = uniqueSchema('cshared');
let a: RunningServer;
let b: RunningServer;
const args = ['--cache', 'shared', '--workers', '2', '--storage-mode', 'unlogged'];

async function cacheInfo(port: number): Promise<Record<string, number>> {
  const c = await RawClient.connect(port);
  const text = String(await c.call('INFO', 'cache'));
  c.close();
  return Object.fromEntries([...text.matchAll(/^(cache_\w+):([\d.]+)/gm)].map((m) => [m[1], Number(m[2])]));
}

async function until(what: string, cond: () => Promise<boolean>, ms = 15_000): Promise<number> {
  const start = Date.now();
  while (!(await cond())) {
    if (Date.now() - start > ms) throw new Error(`timed out (${ms} ms) waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return Date.now() - start;
}

const bothOn = () => until('both caches on', async () =>
  (await cacheInfo(a.port)).cache_enabled === 1 && (await cacheInfo(b.port)).cache_enabled === 1);

before(async () => {
  [a, b] = await Promise.all([startServer(args, { schema }), startServer(args, { schema })]);
});
after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`))).catch(() => undefined);
});

describe('--cache shared', () => {
  it('both instances cache; a write on one reaches the other\'s cached key within the notification delay', async (t) => {
    await bothOn();
    const ca = await RawClient.connect(a.port);
    const cb = await RawClient.connect(b.port);
    const delays: number[] = [];
    for (let i = 0; i < 20; i++) {
      await ca.call('SET', 'k', `v${i}`);
      // b reads it (a fill, then hits)
      await until(`b seeing v${i}`, async () => (await cb.call('GET', 'k')) === `v${i}`);
      await cb.call('GET', 'k');
      await ca.call('SET', 'k', `w${i}`);
      const acked = Date.now();
      await until(`b seeing w${i}`, async () => (await cb.call('GET', 'k')) === `w${i}`, 5000);
      delays.push(Date.now() - acked);
    }
    delays.sort((x, y) => x - y);
    t.diagnostic(`a's SET acknowledged → b's GET shows it: median ${delays[10]} ms, max ${delays[19]} ms`);
    const ib = await cacheInfo(b.port);
    assert.ok(ib.cache_hits > 0, 'b served hits');
    assert.ok(ib.cache_shared_received > 0, 'b received invalidations');
    assert.ok((await cacheInfo(a.port)).cache_shared_sent > 0, 'a sent invalidations');
    ca.close();
    cb.close();
  });

  it('MSET, DEL and FLUSHALL on one instance invalidate the other\'s entries', async () => {
    await bothOn();
    const ca = await RawClient.connect(a.port);
    const cb = await RawClient.connect(b.port);
    await ca.call('MSET', 'm1', 'a', 'm2', 'a');
    await until('b seeing m1, m2', async () => (await cb.call('MGET', 'm1', 'm2') as string[]).join() === 'a,a');
    await cb.call('MGET', 'm1', 'm2');
    await ca.call('MSET', 'm1', 'b', 'm2', 'b');
    await until('b seeing MSET', async () => (await cb.call('MGET', 'm1', 'm2') as string[]).join() === 'b,b', 5000);
    await ca.call('DEL', 'm1');
    await until('b seeing DEL', async () => (await cb.call('GET', 'm1')) === null, 5000);
    assert.equal(await cb.call('GET', 'm2'), 'b');
    await ca.call('FLUSHALL');
    await until('b seeing FLUSHALL', async () => (await cb.call('GET', 'm2')) === null, 5000);
    assert.ok((await cacheInfo(b.port)).cache_shared_epochs > 0, 'FLUSHALL moved b\'s epoch');
    ca.close();
    cb.close();
  });

  it('an instance with --cache off turns the shared caches off while it runs (its writes are seen), then they come back', async () => {
    await bothOn();
    const off = await startServer(['--workers', '1', '--storage-mode', 'unlogged'], { schema });
    try {
      await until('both caches off', async () =>
        (await cacheInfo(a.port)).cache_enabled === 0 && (await cacheInfo(b.port)).cache_enabled === 0, 5000);
      // the newcomer's registration may be the first reason logged (the cache flaps off, then stays off for this one)
      assert.match(a.output(), /read cache \(shared\) off: /);
      assert.match(off.output(), /--cache shared instances serve schema .*waiting 400 ms/);
      const co = await RawClient.connect(off.port);
      const cb = await RawClient.connect(b.port);
      await co.call('SET', 'quiet', '1');
      assert.equal(await cb.call('GET', 'quiet'), '1');
      await co.call('SET', 'quiet', '2');
      assert.equal(await cb.call('GET', 'quiet'), '2');
      co.close();
      cb.close();
    } finally {
      await off.stop();
    }
    await bothOn();
  });

  it('a killed bus link turns that instance\'s cache off until it is back; writes made meanwhile are seen', async () => {
    await bothOn();
    const ca = await RawClient.connect(a.port);
    const cb = await RawClient.connect(b.port);
    await ca.call('SET', 'cut', 'before');
    await until('b caching cut', async () => (await cb.call('GET', 'cut')) === 'before');
    await cb.call('GET', 'cut');
    const runId = /run_id:([0-9a-f]+)/.exec(String(await cb.call('INFO', 'server')))![1]!;
    const killed = await withPg(async (pg) => (await pg.query(
      `SELECT pg_terminate_backend(pid) FROM "${schema}".bus_instances WHERE instance = $1`, [runId.slice(0, 16)])).rows.length);
    assert.equal(killed, 1);
    await ca.call('SET', 'cut', 'during');
    // whatever b answers now, once its link is back it must show the write
    await until('b seeing the write made while its link was down', async () => (await cb.call('GET', 'cut')) === 'during', 10_000);
    assert.match(b.output(), /read cache \(shared\) off: (the bus link is down|no heartbeat back|another instance reconnected)/);
    await bothOn();
    ca.close();
    cb.close();
  });
});
