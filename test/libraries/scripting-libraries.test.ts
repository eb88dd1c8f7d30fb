/**
 * Real libraries that depend on Lua scripts, unmodified, against two PostRESP processes on one
 * schema: rate-limiter-flexible (RateLimiterRedis, ioredis) consuming points from 8 concurrent
 * clients exactly; node-redlock with a contender on each process (mutual exclusion). BullMQ has
 * files of its own: test/e2e/bullmq.test.ts (queues, workers, events, stalled jobs) and
 * test/libraries/bullmq-flow.test.ts (FlowProducer); its 65 scripts compile in
 * test/scripting/bullmq-corpus.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Redis from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import Redlock from 'redlock';
import { startServer, uniqueSchema, type RunningServer } from '../e2e/start-server';
import { withPg } from '../support/pg';

let a: RunningServer;
let b: RunningServer;
const schema = uniqueSchema('libs');
const opened: Redis[] = [];
const client = (port: number): Redis => {
  const r = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: null, lazyConnect: false });
  opened.push(r);
  return r;
};

before(async () => {
  a = await startServer(['--workers', '2', '--storage-mode', 'unlogged'], { schema });
  b = await startServer(['--workers', '2', '--storage-mode', 'unlogged'], { schema });
});
after(async () => {
  await Promise.all(opened.map((r) => r.quit().catch(() => undefined)));
  await Promise.all([a?.stop(), b?.stop()]);
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`))).catch(() => undefined);
});

describe('libraries built on Lua scripts', () => {
  it('rate-limiter-flexible: 8 concurrent clients on two instances consume exactly the points there are', async () => {
    const limiters = Array.from({ length: 8 }, (_, i) => new RateLimiterRedis({
      storeClient: client(i % 2 === 0 ? a.port : b.port), points: 100, duration: 60, keyPrefix: 'rl',
    }));
    const outcomes = await Promise.all(limiters.map(async (l) => {
      let ok = 0;
      let refused = 0;
      for (let i = 0; i < 20; i++) {
        try {
          await l.consume('user-1');
          ok++;
        } catch (e) {
          if (e instanceof Error) throw e; // a rejection that is not "out of points"
          refused++;
        }
      }
      return { ok, refused };
    }));
    assert.equal(outcomes.reduce((n, o) => n + o.ok, 0), 100);
    assert.equal(outcomes.reduce((n, o) => n + o.refused, 0), 60);
    const res = await limiters[1].get('user-1');
    assert.equal(res?.remainingPoints, 0);
    assert.equal(res?.consumedPoints, 160);
  });

  it('node-redlock: one contender on each instance, never two holders at once', async () => {
    const locks = [new Redlock([client(a.port)], { retryCount: -1, retryDelay: 5, retryJitter: 5 }),
      new Redlock([client(b.port)], { retryCount: -1, retryDelay: 5, retryJitter: 5 })];
    let inside = 0;
    let maxInside = 0;
    let entered = 0;
    await Promise.all(locks.map(async (redlock) => {
      for (let i = 0; i < 15; i++) {
        const lock = await redlock.acquire(['resource'], 5000);
        inside++;
        entered++;
        maxInside = Math.max(maxInside, inside);
        await new Promise((r) => setTimeout(r, 2));
        inside--;
        await lock.release();
      }
    }));
    assert.equal(entered, 30);
    assert.equal(maxInside, 1);
  });
});
