/**
 * Blocking commands across worker threads and PostRESP processes on one schema: a push on one
 * instance serves a client blocked on the other, ten clients blocked on both instances are served
 * in the order they blocked, a client that disconnects leaves no waiter and takes nothing, and
 * ioredis's and node-redis's blocking calls work (test/differential/blocking.test.ts compares
 * single-server behaviour with redis-server).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { encode, RawClient, type Value } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';
import { blockedClients } from './blocked-clients';

const schema = uniqueSchema('blocking');
let a: RunningServer;
let b: RunningServer;
const open: RawClient[] = [];

before(async () => {
  [a, b] = await Promise.all([startServer(['--workers', '2'], { schema }), startServer(['--workers', '2'], { schema })]);
});
after(async () => {
  for (const c of open) c.close();
  await Promise.all([a.stop(), b.stop()]);
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
});

async function client(s: RunningServer): Promise<RawClient> {
  const c = await RawClient.connect(s.port);
  open.push(c);
  return c;
}

/** Polls INFO on s until blocked_clients is n. */
const blocked = (s: RunningServer, n: number): Promise<void> => blockedClients(s.port, n);

const waiterRows = () => withPg(async (c) => (await c.query(`SELECT count(*)::int AS n FROM "${schema}".blocked_waiters`)).rows[0].n as number);

describe('blocking across instances and workers', () => {
  it('a BLPOP on one instance is served by an RPUSH on the other; BZPOPMIN by a ZADD', async () => {
    const waiter = await client(a);
    const pusher = await client(b);
    waiter.send('*3\r\n$5\r\nBLPOP\r\n$2\r\nk1\r\n$1\r\n0\r\n');
    await blocked(a, 1);
    assert.equal(await pusher.call('RPUSH', 'k1', 'across'), 1);
    assert.deepEqual(await waiter.read(1), [['k1', 'across']]);
    waiter.send('*3\r\n$8\r\nBZPOPMIN\r\n$2\r\nz1\r\n$1\r\n0\r\n');
    await blocked(a, 1);
    await pusher.call('ZADD', 'z1', '2', 'two', '1', 'one');
    assert.deepEqual(await waiter.read(1), [['z1', 'one', '1']]);
    assert.equal(await pusher.call('ZCARD', 'z1'), 1);
  });

  it('ten clients blocked on both instances are served in the order they blocked', async () => {
    const waiters: RawClient[] = [];
    for (let i = 0; i < 10; i++) {
      const s = i % 2 === 0 ? a : b;
      const c = await client(s);
      c.send('*3\r\n$5\r\nBLPOP\r\n$4\r\nfifo\r\n$1\r\n0\r\n');
      await blocked(s, Math.floor(i / 2) + 1);
      waiters.push(c);
    }
    const pusher = await client(b);
    assert.equal(await pusher.call('RPUSH', 'fifo', ...Array.from({ length: 10 }, (_, i) => `e${i}`)), 10);
    const got = await Promise.all(waiters.map(async (c) => (await c.read(1))[0] as Value[]));
    assert.deepEqual(got.map((r) => r[1]), Array.from({ length: 10 }, (_, i) => `e${i}`));
    assert.equal(await pusher.call('EXISTS', 'fifo'), 0);
    assert.equal(await waiterRows(), 0);
  });

  it('ten XREADGROUP readers of one group blocked on both instances are served in the order they blocked', async () => {
    const writer = await client(b);
    await writer.call('XGROUP', 'CREATE', 'xfifo', 'g', '$', 'MKSTREAM');
    await writer.call('XGROUP', 'CREATE', 'xfifo', 'other', '$');
    const readers: RawClient[] = [];
    for (let i = 0; i < 10; i++) {
      const s = i % 2 === 0 ? a : b;
      const c = await client(s);
      c.send(encode('XREADGROUP', 'GROUP', 'g', `c${i}`, 'COUNT', '1', 'BLOCK', '0', 'STREAMS', 'xfifo', '>'));
      await blocked(s, Math.floor(i / 2) + 1);
      readers.push(c);
    }
    // a reader of another group, blocked last, is not queued behind them
    const outsider = await client(a);
    outsider.send(encode('XREADGROUP', 'GROUP', 'other', 'o', 'COUNT', '1', 'BLOCK', '0', 'STREAMS', 'xfifo', '>'));
    await blocked(a, 6);
    await writer.call('MULTI');
    for (let i = 0; i < 10; i++) await writer.call('XADD', 'xfifo', `${i + 1}-0`, 'f', `e${i}`);
    assert.equal((await writer.call('EXEC') as Value[]).length, 10);
    const got = await Promise.all(readers.map(async (c) => (await c.read(1))[0] as Value[]));
    assert.deepEqual(got, Array.from({ length: 10 }, (_, i) => [['xfifo', [[`${i + 1}-0`, ['f', `e${i}`]]]]]));
    assert.deepEqual(await outsider.read(1), [[['xfifo', [['1-0', ['f', 'e0']]]]]]);
    assert.equal(await waiterRows(), 0);
  });

  it('an XREADGROUP that blocks while an EXEC on its key runs on another worker is answered by that EXEC', async () => {
    // EXEC reported its writes only when somebody waited at its start: a reader that blocked while
    // it ran was woken by nothing (stream-cgroups "key type changed with transaction": 4 hangs in 40)
    const writer = await client(a);
    for (let i = 0; i < 30; i++) {
      await writer.call('DEL', 'xm');
      await writer.call('XADD', 'xm', '666', 'f', 'v');
      await writer.call('XGROUP', 'CREATE', 'xm', 'g', '$');
      const reader = await client(a);
      reader.send(encode('XREADGROUP', 'GROUP', 'g', 'r', 'BLOCK', '0', 'STREAMS', 'xm', '>'));
      writer.send(Buffer.concat([encode('MULTI'), encode('DEL', 'xm'), encode('SADD', 'xm', 'e1'), encode('EXEC')]));
      // UNBLOCKED when the read came first; WRONGTYPE or NOGROUP when the EXEC did (two workers)
      const [answer] = await reader.read(1, 5000);
      assert.ok(typeof answer === 'object' && answer !== null && 'error' in answer, JSON.stringify(answer));
      await writer.read(4);
      reader.close();
    }
  });

  it('a client that disconnects while blocked leaves no waiter and takes nothing', async () => {
    const waiter = await client(b);
    waiter.send('*4\r\n$5\r\nBRPOP\r\n$2\r\ng1\r\n$2\r\ng2\r\n$1\r\n0\r\n');
    await blocked(b, 1);
    assert.equal(await waiterRows(), 2);
    waiter.close();
    await blocked(b, 0);
    for (let i = 0; i < 100 && await waiterRows() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await waiterRows(), 0);
    const pusher = await client(a);
    await pusher.call('RPUSH', 'g2', 'kept');
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await pusher.call('LRANGE', 'g2', '0', '-1'), ['kept']);
  });

  it('a client blocked on one worker is woken by a push on the other worker of the same instance', async () => {
    // the primary deals each new connection to the worker with the fewest: two in a row differ
    const [waiter, pusher] = [await client(a), await client(a)];
    waiter.send('*6\r\n$6\r\nBLMOVE\r\n$3\r\nsrc\r\n$3\r\ndst\r\n$5\r\nRIGHT\r\n$4\r\nLEFT\r\n$1\r\n5\r\n');
    await blocked(a, 1);
    await pusher.call('LPUSH', 'src', 'moved');
    assert.deepEqual(await waiter.read(1), ['moved']);
    assert.deepEqual(await pusher.call('LRANGE', 'dst', '0', '-1'), ['moved']);
  });

  it('a push answers after the clients it serves on its instance, on both workers: linked BLMOVEs, circular BRPOPLPUSH', async () => {
    // Redis 7.0's unit/type/list "Linked LMOVEs" and "Circular BRPOPLPUSH": RPUSH, then LRANGE at
    // once sees the pops done. 10 rounds each (before the reply waited: 13 and 10 of 20 saw the element still in list1)
    for (let round = 0; round < 10; round++) {
      // three connections in a row: the waiters on different workers, the pusher on the first's
      const [w1, w2, pusher] = [await client(a), await client(a), await client(a)];
      await pusher.call('DEL', 'list1', 'list2', 'list3');
      w1.send(encode('BLMOVE', 'list1', 'list2', 'RIGHT', 'LEFT', '0'));
      await blocked(a, 1);
      w2.send(encode('BLMOVE', 'list2', 'list3', 'LEFT', 'RIGHT', '0'));
      await blocked(a, 2);
      await pusher.call('RPUSH', 'list1', 'foo');
      assert.deepEqual([await pusher.call('LRANGE', 'list1', '0', '-1'), await pusher.call('LRANGE', 'list2', '0', '-1'),
        await pusher.call('LRANGE', 'list3', '0', '-1')], [[], [], ['foo']], `linked, round ${round}`);
      assert.deepEqual([await w1.read(1), await w2.read(1)], [['foo'], ['foo']]);
      w1.send(encode('BRPOPLPUSH', 'list1', 'list2', '0'));
      await blocked(a, 1);
      w2.send(encode('BRPOPLPUSH', 'list2', 'list1', '0'));
      await blocked(a, 2);
      await pusher.call('DEL', 'list3');
      await pusher.call('RPUSH', 'list1', 'foo');
      assert.deepEqual([await pusher.call('LRANGE', 'list1', '0', '-1'), await pusher.call('LRANGE', 'list2', '0', '-1')],
        [['foo'], []], `circular, round ${round}`);
      for (const c of [w1, w2, pusher]) c.close();
    }
  });

  it('a push pipelined with a BLPOP that the push\'s waiter feeds answers both (no reply waits for itself)', async () => {
    // w's BLMOVE, served by the RPUSH, pushes to k2 where x's BLPOP (pipelined behind the RPUSH)
    // may already wait: the RPUSH's reply waits for w, w's for the clients its push woke; x's
    // BLPOP served must not wait for x's own RPUSH reply
    // on one worker the cycle (x's served BLPOP waiting for x's RPUSH reply, which waits for w,
    // which waits for x) never ended; across workers the ask's 1 s limit broke it. Connections go
    // to the worker with the fewest: w and x one apart or two apart, one of the two is on w's
    for (let round = 0; round < 6; round++) {
      const w = await client(a);
      const between = round % 2 === 1 ? await client(a) : undefined;
      const x = await client(a);
      await x.call('DEL', 'pk1', 'pk2');
      w.send(encode('BLMOVE', 'pk1', 'pk2', 'LEFT', 'RIGHT', '0'));
      await blocked(a, 1);
      x.send(Buffer.concat([encode('RPUSH', 'pk1', 'a'), encode('BLPOP', 'pk2', '0')]));
      assert.deepEqual(await x.read(2), [1, ['pk2', 'a']], `round ${round}`);
      assert.deepEqual(await w.read(1), ['a']);
      for (const c of [w, x, between]) c?.close();
    }
  });

  it('XREAD and XREADGROUP blocked on one instance are served by an XADD on the other; XGROUP DESTROY there ends one', async () => {
    const [reader, member, writer] = [await client(a), await client(a), await client(b)];
    await writer.call('XGROUP', 'CREATE', 'xs', 'g', '$', 'MKSTREAM');
    reader.send('*6\r\n$5\r\nXREAD\r\n$5\r\nBLOCK\r\n$1\r\n0\r\n$7\r\nSTREAMS\r\n$2\r\nxs\r\n$1\r\n$\r\n');
    member.send(encode('XREADGROUP', 'GROUP', 'g', 'm', 'BLOCK', '0', 'STREAMS', 'xs', '>'));
    await blocked(a, 2);
    assert.equal(await writer.call('XADD', 'xs', '1-1', 'f', 'v'), '1-1');
    const entry = [['xs', [['1-1', ['f', 'v']]]]];
    assert.deepEqual(await reader.read(1), [entry]);
    assert.deepEqual(await member.read(1), [entry]);
    member.send(encode('XREADGROUP', 'GROUP', 'g', 'm', 'BLOCK', '0', 'STREAMS', 'xs', '>'));
    await blocked(a, 1);
    await writer.call('XGROUP', 'DESTROY', 'xs', 'g');
    assert.deepEqual(await member.read(1), [{ error: 'NOGROUP the consumer group this client was blocked on no longer exists' }]);
  });
});

// RESTORE of a stream wakes the XREAD / XREADGROUP BLOCK calls waiting on its key, as Redis 7.0's
// dbAdd signals the key ready: from the other instance, inside MULTI and from a script; the
// payload is the server's own DUMP of another key (test/differential/blocking-streams.test.ts
// compares the same with redis-server on one instance)
/** a reply or 'still blocked' after ms */
const within = (p: Promise<unknown>, ms: number) =>
  Promise.race([p, new Promise((r) => setTimeout(() => r('still blocked'), ms))]);

const restoredEntry = (key: string) => [[key, [['5-0', ['f', 'v']]]]];

type Restore = (w: RawClient, key: string, payload: Buffer, replace: boolean) => Promise<unknown>;
const kWays: [string, Restore][] = [
  ['RESTORE on the other instance', (w, key, payload, replace) => w.call('RESTORE', key, '0', payload, ...(replace ? ['REPLACE'] : []))],
  ['RESTORE inside MULTI on the other instance', async (w, key, payload, replace) => {
    await w.call('MULTI');
    await w.call('RESTORE', key, '0', payload, ...(replace ? ['REPLACE'] : []));
    return w.call('EXEC');
  }],
  ['RESTORE from a script on the other instance', (w, key, _payload, replace) =>
    w.call('EVAL', `return redis.call("RESTORE", KEYS[1], 0, redis.call("DUMP", KEYS[2])${replace ? ', "REPLACE"' : ''})`, '2', key, 'restore:src')],
];

describe('RESTORE of a stream wakes blocked stream reads', () => {
  before(async () => {
    const w = await client(b);
    // a stream with entry 5-0 and group g that has delivered nothing
    await w.call('XGROUP', 'CREATE', 'restore:src', 'g', '0', 'MKSTREAM');
    await w.call('XADD', 'restore:src', '5-0', 'f', 'v');
  });

  for (const [how, restore] of kWays) {
    it(`${how}: a blocked XREAD on a new key and a blocked XREADGROUP under REPLACE are served`, async () => {
      const [x, y] = [`x:${how}`, `y:${how}`];
      const [reader, member, writer] = [await client(a), await client(a), await client(b)];
      const payload = Buffer.from(await writer.call('DUMP', 'restore:src') as string, 'latin1');
      reader.send(encode('XREAD', 'BLOCK', '0', 'STREAMS', x, '0'));
      await writer.call('XGROUP', 'CREATE', y, 'g', '$', 'MKSTREAM');
      member.send(encode('XREADGROUP', 'GROUP', 'g', 'm', 'BLOCK', '0', 'STREAMS', y, '>'));
      await blocked(a, 2);
      await restore(writer, x, payload, false);
      assert.deepEqual(await within(reader.read(1), 3000), [restoredEntry(x)]);
      await restore(writer, y, payload, true);
      assert.deepEqual(await within(member.read(1), 3000), [restoredEntry(y)]);
      assert.deepEqual(await writer.call('XPENDING', y, 'g'), [1, '5-0', '5-0', [['m', '1']]]);
    });
  }
});

describe('a blocked XREADGROUP woken while its key is deleted and made again in one transaction', () => {
  // RESTORE … REPLACE deletes the kv row and inserts the new one in one transaction. A woken
  // XREADGROUP's try that waited for that row's lock found the old row gone and not the new one
  // (READ COMMITTED: the new row is not in the waiting statement's snapshot) and answered
  // "UNBLOCKED the stream key no longer exists" (blocking.test's RESTORE REPLACE case, once),
  // where Redis sees the key as the command left it. Made certain here: the same DELETE + INSERT
  // held open in a transaction of this test while the waiter's try is made to run (its instance's
  // bus connection is cut: on reconnecting, every blocked client looks again), then an XADD.
  it('waits on and is served by the next entry (on main: UNBLOCKED)', async () => {
    const [member, writer] = [await client(a), await client(b)];
    const t = `"${schema}"`;
    await writer.call('XGROUP', 'CREATE', 'remade', 'g', '$', 'MKSTREAM');
    member.send(encode('XREADGROUP', 'GROUP', 'g', 'm', 'BLOCK', '0', 'STREAMS', 'remade', '>'));
    await blocked(a, 1);
    await withPg(async (tx) => {
      await tx.query('BEGIN');
      await tx.query(`CREATE TEMP TABLE remade_kv ON COMMIT DROP AS SELECT * FROM ${t}.kv WHERE db = 0 AND key = 'remade'::bytea`);
      await tx.query(`CREATE TEMP TABLE remade_g ON COMMIT DROP AS SELECT * FROM ${t}.stream_groups WHERE db = 0 AND key = 'remade'::bytea`);
      await tx.query(`DELETE FROM ${t}.kv WHERE db = 0 AND key = 'remade'::bytea`);
      await tx.query(`INSERT INTO ${t}.kv SELECT * FROM remade_kv`);
      await tx.query(`INSERT INTO ${t}.stream_groups SELECT * FROM remade_g`);
      const waiting = await withPg(async (c) => {
        await c.query(`SELECT pg_terminate_backend(pid) FROM ${t}.bus_instances`);
        for (let i = 0; i < 500; i++) {
          const r = await c.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%x_readgroup%'`);
          if (r.rows[0].n > 0) return true;
          await new Promise((r) => setTimeout(r, 20));
        }
        return false;
      });
      await tx.query('COMMIT');
      assert.ok(waiting, 'the woken XREADGROUP waited for the row lock');
    });
    assert.equal(await writer.call('XADD', 'remade', '7-0', 'f', 'v'), '7-0');
    assert.deepEqual(await within(member.read(1), 5000), [[['remade', [['7-0', ['f', 'v']]]]]]);
  });
});

describe('client libraries', () => {
  it('ioredis: blpop, brpoplpush, blmove, bzpopmax, bzmpop and a timeout', async () => {
    const waiter = new Redis({ port: a.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
    const pusher = new Redis({ port: b.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
    await Promise.all([waiter.connect(), pusher.connect()]);
    try {
      const popped = waiter.blpop('io:l', 0);
      await blocked(a, 1);
      await pusher.rpush('io:l', 'x');
      assert.deepEqual(await popped, ['io:l', 'x']);
      const moved = waiter.brpoplpush('io:s', 'io:d', 0);
      await blocked(a, 1);
      await pusher.rpush('io:s', 'y');
      assert.equal(await moved, 'y');
      await pusher.rpush('io:s', 'z');
      assert.equal(await waiter.blmove('io:s', 'io:d', 'LEFT', 'LEFT', 1), 'z');
      const zpopped = waiter.bzpopmax('io:z', 0);
      await blocked(a, 1);
      await pusher.zadd('io:z', 5, 'five');
      assert.deepEqual(await zpopped, ['io:z', 'five', '5']);
      await pusher.zadd('io:z', 1, 'a', 2, 'b');
      assert.deepEqual(await waiter.call('BZMPOP', '1', '1', 'io:z', 'MIN', 'COUNT', '5'), ['io:z', [['a', '1'], ['b', '2']]]);
      assert.equal(await waiter.blpop('io:none', 0.05), null);
    } finally {
      waiter.disconnect();
      pusher.disconnect();
    }
  });

  it('node-redis: blPop, brPop, blMove, bzPopMin, blmPop and a timeout', async () => {
    const waiter = createClient({ socket: { port: b.port, host: '127.0.0.1', reconnectStrategy: false } });
    const pusher = createClient({ socket: { port: a.port, host: '127.0.0.1', reconnectStrategy: false } });
    await Promise.all([waiter.connect(), pusher.connect()]);
    try {
      const popped = waiter.blPop('nr:l', 0);
      await blocked(b, 1);
      await pusher.rPush('nr:l', ['p', 'q']);
      assert.deepEqual(await popped, { key: 'nr:l', element: 'p' });
      assert.deepEqual(await waiter.brPop(['nr:none', 'nr:l'], 1), { key: 'nr:l', element: 'q' });
      const moved = waiter.blMove('nr:s', 'nr:d', 'RIGHT', 'LEFT', 0);
      await blocked(b, 1);
      await pusher.lPush('nr:s', 'm');
      assert.equal(await moved, 'm');
      const zpopped = waiter.bzPopMin('nr:z', 0);
      await blocked(b, 1);
      await pusher.zAdd('nr:z', { score: 3, value: 'three' });
      assert.deepEqual(await zpopped, { key: 'nr:z', value: 'three', score: 3 });
      await pusher.rPush('nr:m', ['1', '2', '3']);
      assert.deepEqual(await waiter.blmPop(1, ['nr:m'], 'LEFT', { COUNT: 2 }), ['nr:m', ['1', '2']]);
      assert.equal(await waiter.blPop('nr:none', 0.05), null);
    } finally {
      await Promise.all([waiter.quit(), pusher.quit()]);
    }
  });
});
