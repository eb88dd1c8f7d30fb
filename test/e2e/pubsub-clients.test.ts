/**
 * End to end: the subscriber APIs of ioredis and node-redis (RESP2 and RESP3) against PostRESP
 * with two workers — subscribe, pattern and shard subscriptions, a publisher on another
 * connection (another worker), unsubscribing, and the connection back to normal commands.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { startServer, type RunningServer } from './start-server';

let s: RunningServer;
before(async () => {
  s = await startServer(['--workers', '2', '--storage-mode', 'unlogged']);
});
after(async () => {
  await s?.stop();
});

/** resolves with the first n values `collect` is called with */
function collector<T>(n: number): { add: (v: T) => void; done: Promise<T[]> } {
  const got: T[] = [];
  let resolve!: (v: T[]) => void;
  const done = new Promise<T[]>((r) => (resolve = r));
  return { add: (v) => { got.push(v); if (got.length === n) resolve(got); }, done };
}

describe('pub/sub clients', () => {
  it('ioredis: subscribe, psubscribe, ssubscribe, messages, unsubscribe, then commands again', async () => {
    const sub = new Redis({ port: s.port, host: '127.0.0.1' });
    const pub = new Redis({ port: s.port, host: '127.0.0.1' });
    try {
      const got = collector<string>(4);
      sub.on('message', (ch: string, m: string) => got.add(`message ${ch} ${m}`));
      sub.on('pmessage', (p: string, ch: string, m: string) => got.add(`pmessage ${p} ${ch} ${m}`));
      sub.on('smessage', (ch: string, m: string) => got.add(`smessage ${ch} ${m}`));
      assert.equal(await sub.subscribe('news', 'sport'), 2);
      assert.equal(await sub.psubscribe('n*'), 3);
      assert.equal(await sub.ssubscribe('shard'), 1);
      assert.equal(await pub.publish('news', 'a'), 2);
      assert.equal(await pub.publish('sport', 'b'), 1);
      assert.equal(await pub.spublish('shard', 'c'), 1);
      assert.deepEqual((await got.done).sort(), ['message news a', 'message sport b', 'pmessage n* news a', 'smessage shard c']);
      assert.deepEqual(await pub.pubsub('NUMSUB', 'news', 'sport'), ['news', 1, 'sport', 1]);
      // named: ioredis's unsubscribe() with none waits for a count of 0, which the pattern keeps
      // above 0 (against redis-server too)
      assert.equal(await sub.unsubscribe('news', 'sport'), 1);
      assert.equal(await sub.punsubscribe('n*'), 0);
      assert.equal(await sub.sunsubscribe('shard'), 0);
      assert.equal(await pub.publish('news', 'x'), 0);
      assert.equal(await sub.set('k', 'v'), 'OK');
    } finally {
      sub.disconnect();
      pub.disconnect();
    }
  });

  for (const RESP of [2, 3] as const) {
    it(`node-redis RESP${RESP}: subscribe and pSubscribe listeners, binary messages, unsubscribe`, async () => {
      const pub = createClient({ socket: { port: s.port, host: '127.0.0.1', reconnectStrategy: false }, RESP });
      await pub.connect();
      const sub = pub.duplicate();
      await sub.connect();
      try {
        const got = collector<string>(3);
        await sub.subscribe('ch', (m, ch) => got.add(`${ch}: ${m}`));
        await sub.pSubscribe('c*', (m, ch) => got.add(`c* ${ch}: ${m}`));
        const bin = collector<Buffer>(1);
        await sub.subscribe('bin', (m) => bin.add(m), true);
        assert.equal(await pub.publish('ch', 'hello'), 2);
        assert.equal(await pub.publish('cx', 'there'), 1);
        const payload = Buffer.from([0, 1, 2, 255, 13, 10]);
        await pub.publish('bin', payload);
        assert.deepEqual((await got.done).sort(), ['c* ch: hello', 'c* cx: there', 'ch: hello']);
        assert.deepEqual(await bin.done, [payload]);
        await sub.unsubscribe();
        await sub.pUnsubscribe();
        assert.equal(await pub.publish('ch', 'x'), 0);
      } finally {
        await sub.quit();
        await pub.quit();
      }
    });
  }
});
