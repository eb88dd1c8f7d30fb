/**
 * End to end: pub/sub and keyspace notifications between two PostRESP processes on one schema,
 * through the bus's LISTEN/NOTIFY link (docs/messaging.md): a PUBLISH on one reaches a PSUBSCRIBE
 * on the other; PUBLISH counts only its own instance's receivers (as a Redis Cluster node does);
 * a 1 MB message (through bus_messages) arrives whole and in order; one publisher's messages
 * arrive in order; a write on one fires the keyspace event a subscriber on the other hears.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RawClient, encode, type Value } from './resp-client';
import { twoInstances } from './two-instances';

const two = twoInstances('pubsub_two', ['--workers', '2', '--storage-mode', 'unlogged']);

async function subscriber(port: number, ...cmd: string[]): Promise<RawClient> {
  const c = await RawClient.connect(port);
  c.send(encode(...cmd));
  await c.read(cmd.length - 1);
  return c;
}

describe('pub/sub across two instances', () => {
  it('PUBLISH on one reaches a PSUBSCRIBE on the other, counting only its own receivers', async () => {
    const sb = await subscriber(two.b.port, 'PSUBSCRIBE', 'news.*');
    const sa = await subscriber(two.a.port, 'SUBSCRIBE', 'news.x');
    const pub = await RawClient.connect(two.a.port);
    try {
      assert.equal(await pub.call('PUBLISH', 'news.x', 'hi'), 1);
      assert.deepEqual(await sb.read(1), [['pmessage', 'news.*', 'news.x', 'hi']]);
      assert.deepEqual(await sa.read(1), [['message', 'news.x', 'hi']]);
      assert.deepEqual(await pub.call('PUBSUB', 'NUMPAT'), 0);
    } finally {
      for (const c of [sa, sb, pub]) c.close();
    }
  });

  it('a 1 MB message arrives whole between small ones, and one publisher\'s 2,000 messages in order', async () => {
    const sb = await subscriber(two.b.port, 'SUBSCRIBE', 'big', 'seq');
    const pub = await RawClient.connect(two.a.port);
    try {
      const big = Buffer.alloc(1024 * 1024);
      for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 0xff;
      pub.send(Buffer.concat([encode('PUBLISH', 'big', 'before'), encode('PUBLISH', 'big', big), encode('PUBLISH', 'big', 'after')]));
      await pub.read(3);
      const got = await sb.read(3) as Value[][];
      assert.deepEqual([got[0][2], got[2][2]], ['before', 'after']);
      assert.equal(Buffer.from(got[1][2] as string, 'latin1').equals(big), true);
      const n = 2000;
      pub.send(Buffer.concat(Array.from({ length: n }, (_, i) => encode('PUBLISH', 'seq', String(i)))));
      await pub.read(n);
      const seq = (await sb.read(n) as Value[][]).map((m) => Number(m[2]));
      assert.deepEqual(seq, Array.from({ length: n }, (_, i) => i));
    } finally {
      sb.close();
      pub.close();
    }
  });

  it('a write on one fires the keyspace notification a subscriber on the other hears', async () => {
    const w = await RawClient.connect(two.a.port);
    const sb = await subscriber(two.b.port, 'PSUBSCRIBE', '__key*@3__:*');
    try {
      // the writing instance's setting decides, as each Redis node notifies its own writes
      assert.equal(await w.call('CONFIG', 'SET', 'notify-keyspace-events', 'KEA'), 'OK');
      await w.call('SELECT', '3');
      await w.call('RPUSH', 'q', 'job');
      assert.deepEqual(await sb.read(2), [['pmessage', '__key*@3__:*', '__keyspace@3__:q', 'rpush'],
        ['pmessage', '__key*@3__:*', '__keyevent@3__:rpush', 'q']]);
      assert.equal(await w.call('CONFIG', 'SET', 'notify-keyspace-events', ''), 'OK');
    } finally {
      w.close();
      sb.close();
    }
  });
});
