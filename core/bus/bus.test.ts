// The bus inside one process: a hub and three worker ends (core/bus/in-thread.ts), no Postgres.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { inThreadBus, type InThreadBus } from './in-thread';
import { recorder } from './test-recorder';

const b = (s: string) => Buffer.from(s);
const turn = () => new Promise((r) => setImmediate(r));

describe('MessageBus in one process', { timeout: 30_000 }, () => {
  let p: InThreadBus;
  beforeEach(async () => { p = await inThreadBus(3); });
  afterEach(() => p.close());

  test('a message reaches the subscribers of every worker; PUBLISH counts them all', async () => {
    const [w0, w1, w2] = p.buses;
    const s0 = recorder();
    const s1 = recorder();
    const s2 = recorder();
    await w0!.subscribe('c', b('news'), s0);
    await w1!.subscribe('c', b('news'), s1);
    await w2!.subscribe('c', b('news'), s2);
    assert.equal(w0!.publish(b('news'), b('hello')), 3);
    assert.deepEqual(s0.got, [['m', 'news', 'hello']]); // the publisher's own worker: at once
    await s1.until(1);
    await s2.until(1);
    assert.deepEqual(s2.got, [['m', 'news', 'hello']]);
    assert.equal(w1!.publish(b('other'), b('x')), 0);
  });

  test('publishCounted: the other workers count their own receivers, so an unsubscribe in flight is not counted', async () => {
    const [w0, w1, w2] = p.buses;
    const s1 = recorder();
    const s2 = recorder();
    await w1!.subscribe('c', b('ch'), s1);
    await w2!.subscribe('p', b('c*'), s2);
    assert.equal(await w0!.publishCounted(b('ch'), b('1')), 2);
    // w1 leaves and w0 publishes before the hub told w0: its view still counts w1, w1 does not
    w1!.unsubscribe('c', b('ch'), s1);
    assert.equal(w0!.publish(b('ch'), b('view')), 2);
    assert.equal(await w0!.publishCounted(b('ch'), b('2')), 1);
    assert.equal(await w0!.publishCounted(b('nobody'), b('3')), 0);
    await s2.until(3);
    assert.deepEqual(s1.got.map((g) => g[2]), ['1']);
  });

  test('defer: a subscriber holds its worker\'s count of a counted publish until a promise settles', async () => {
    const [w0, w1] = p.buses;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let calls = 0;
    const sub = { deliver: () => { calls++; w1!.defer(held); return true; } };
    await w1!.subscribe('s', b('fence'), sub);
    let answered = false;
    const counted = w0!.publishCounted(b('fence'), b(''), true);
    assert.ok(counted instanceof Promise);
    void counted.then(() => (answered = true));
    while (calls === 0) await turn();
    for (let i = 0; i < 5; i++) await turn();
    assert.equal(answered, false, 'answered before the deferred promise settled');
    release();
    assert.equal(await counted, 1);
    // a deliver without defer answers at once again (the deferral does not leak to the next item)
    sub.deliver = () => { calls++; return true; };
    assert.equal(await w0!.publishCounted(b('fence'), b(''), true), 1);
  });

  test('one publisher: every subscriber sees its messages in publish order', async () => {
    const [w0, w1, w2] = p.buses;
    const s1 = recorder();
    const s2 = recorder();
    await w1!.subscribe('c', b('q'), s1);
    await w2!.subscribe('p', b('q*'), s2);
    for (let i = 0; i < 2000; i++) {
      w0!.publish(b('q'), b(String(i)));
      if (i % 97 === 0) await turn(); // several frames, not one
    }
    await s1.until(2000);
    await s2.until(2000);
    assert.deepEqual(s1.got.map((g) => Number(g[2])), Array.from({ length: 2000 }, (_, i) => i));
    assert.deepEqual(s2.got.map((g) => Number(g[2])), Array.from({ length: 2000 }, (_, i) => i));
    assert.deepEqual(s2.got[0], ['m', 'q', '0', 'q*']);
  });

  test('frames queued together are handled in one turn: each publisher\'s order kept, one CountFrame per publishing worker', async () => {
    const [w0, w1, w2] = p.buses;
    const s1 = recorder();
    await w1!.subscribe('c', b('q'), s1);
    await w1!.subscribe('p', b('q*'), s1);
    await turn();
    const before = { ...w1!.stats };
    const counted: (number | Promise<number>)[] = [];
    // two publishing workers, three frames each (a flush between batches), all in one macrotask
    for (let batch = 0; batch < 3; batch++) {
      for (let i = 0; i < 50; i++) {
        counted.push(w0!.publishCounted(b('q'), b(`a${batch * 50 + i}`)));
        counted.push(w2!.publishCounted(b('q'), b(`b${batch * 50 + i}`)));
      }
      await null; // the bus's flush microtask runs: the next batch is a frame of its own
    }
    assert.deepEqual(await Promise.all(counted), Array(300).fill(2)); // channel + pattern on w1, counted by w1
    await s1.until(600);
    const from = (prefix: string, kind: number) => s1.got.filter((g) => g[2].startsWith(prefix) && (g.length === 4) === (kind === 1)).map((g) => Number(g[2].slice(1)));
    for (const prefix of ['a', 'b']) {
      assert.deepEqual(from(prefix, 0), Array.from({ length: 150 }, (_, i) => i));
      assert.deepEqual(from(prefix, 1), Array.from({ length: 150 }, (_, i) => i));
    }
    const frames = w1!.stats.framesIn - before.framesIn;
    const turns = w1!.stats.turnsIn - before.turnsIn;
    const answers = w1!.stats.countFramesOut - before.countFramesOut;
    assert.equal(frames, 6);
    assert.ok(turns < frames, `${frames} frames in ${turns} turns`);
    assert.ok(answers <= 2 * turns && answers < frames, `${answers} CountFrames for ${frames} frames in ${turns} turns`);
  });

  test('patterns match as Redis globs; SSUBSCRIBE channels are a namespace of their own', async () => {
    const [w0, w1] = p.buses;
    const s = recorder();
    await w1!.subscribe('p', b('user.[ab]?'), s);
    await w1!.subscribe('s', b('shard'), s);
    assert.equal(w0!.publish(b('user.a1'), b('1')), 1);
    assert.equal(w0!.publish(b('user.c1'), b('2')), 0);
    assert.equal(w0!.publish(b('shard'), b('3')), 0); // PUBLISH does not reach SSUBSCRIBE
    assert.equal(w0!.publish(b('shard'), b('4'), true), 1);
    await s.until(2);
    assert.deepEqual(s.got, [['m', 'user.a1', '1', 'user.[ab]?'], ['s', 'shard', '4']]);
  });

  test('binary channels and messages, and a 1 MB message', async () => {
    const [w0, w1] = p.buses;
    const bin = Buffer.from([0, 255, 13, 10, 0x80]);
    const big = Buffer.alloc(1 << 20, 7);
    const got: Buffer[] = [];
    await w1!.subscribe('c', bin, { deliver: (_k, c, m) => { assert.deepEqual(c, bin); got.push(Buffer.from(m)); return true; } });
    w0!.publish(bin, big);
    w0!.publish(bin, bin);
    while (got.length < 2) await turn();
    assert.ok(got[0]!.equals(big));
    assert.ok(got[1]!.equals(bin));
  });

  test('unsubscribe: no more messages, and nothing leaves the publisher when nobody else listens', async () => {
    const [w0, w1] = p.buses;
    const s = recorder();
    await w1!.subscribe('c', b('t'), s);
    assert.equal(w1!.unsubscribe('c', b('t'), s), true);
    assert.equal(w1!.unsubscribe('c', b('t'), s), false);
    await w1!.subscribe('c', b('sync'), s); // its view reached w0 after the unsubscribe's
    const sent = w0!.stats.sentLocal;
    assert.equal(w0!.publish(b('t'), b('x')), 0);
    w0!.wake(0, b('k'));
    await turn();
    assert.equal(w0!.stats.sentLocal, sent);
    assert.equal(w0!.stats.sentRemote, 0);
  });

  test('a push wakes the clients blocked on the key in any worker; in one worker in the order they blocked', async () => {
    const [w0, w1, w2] = p.buses;
    const order: string[] = [];
    const first = () => order.push('first');
    const second = () => order.push('second');
    const third = () => order.push('third');
    await w1!.waitKey(0, b('list'), first);
    await w1!.waitKey(0, b('list'), second);
    await w2!.waitKey(0, b('list'), third);
    await w2!.waitKey(1, b('list'), () => order.push('other db'));
    w0!.wake(0, b('list'));
    w0!.wake(0, b('not-waited'));
    while (order.length < 3) await turn();
    await turn();
    // across workers each wakes on its own: serving them in blocking order is the commands' job
    assert.deepEqual(order.filter((o) => o !== 'third'), ['first', 'second']);
    assert.ok(order.includes('third'));
    w1!.unwaitKey(0, b('list'), first);
    w1!.wake(0, b('list')); // its own worker: at once
    assert.deepEqual(order.slice(3), ['second']);
  });

  test('a client blocking in a loop tells the hub once: only whether a key is waited on here, and its end 250 ms late', async () => {
    const [w0, w1] = p.buses;
    const hub = p.hub;
    const counts: number[] = [];
    const onMessage = hub.onMessage.bind(hub);
    hub.onMessage = (w, port, msg) => {
      if (msg.op === 'count') counts.push(w);
      onMessage(w, port, msg);
    };
    let woken = 0;
    const a = () => { woken++; };
    const c = () => undefined;
    await w1!.waitKey(0, b('loop'), a);
    for (let i = 0; i < 20; i++) {
      // served or timed out, and blocking again at once; another client comes and goes meanwhile
      w1!.unwaitKey(0, b('loop'), a);
      await w1!.waitKey(0, b('loop'), c);
      await w1!.waitKey(0, b('loop'), a);
      w1!.unwaitKey(0, b('loop'), c);
    }
    assert.deepEqual(counts, [1], 'one count to the hub for 20 waits');
    assert.ok(w0!.waited(0, b('loop')));
    w0!.wake(0, b('loop'));
    while (woken === 0) await turn();
    w1!.unwaitKey(0, b('loop'), a);
    const t0 = Date.now();
    while (w0!.waited(0, b('loop'))) await new Promise((r) => setTimeout(r, 5));
    const took = Date.now() - t0;
    assert.ok(took >= 240 && took < 5000, `w0 saw the key go after ${took} ms`);
    assert.deepEqual(counts, [1, 1]);
  });

  test('a subscriber over its limit is dropped from every subscription; the others keep receiving', async () => {
    const [w0, w1] = p.buses;
    const slow = recorder(2);
    const fine = recorder();
    await w1!.subscribe('c', b('a'), slow);
    await w1!.subscribe('p', b('*'), slow);
    await w1!.subscribe('c', b('a'), fine);
    for (let i = 0; i < 5; i++) w0!.publish(b('a'), b(String(i)));
    await fine.until(5);
    assert.equal(slow.got.length, 2);
    await w1!.subscribe('c', b('sync'), fine); // after the drop's views reached w0
    assert.equal(w0!.publish(b('a'), b('after')), 1);
  });

  test('a replaced worker (hello again) loses what it subscribed', async () => {
    const [w0, w1] = p.buses;
    await w1!.subscribe('c', b('gone'), recorder());
    assert.equal(w0!.publish(b('gone'), b('x')), 1);
    p.hub.workerGone(1);
    await w0!.subscribe('c', b('sync'), recorder()); // a round trip after the views went out
    assert.equal(w0!.publish(b('gone'), b('x')), 0);
  });
});
