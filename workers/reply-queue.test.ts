import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReplyWriter } from '../protocol/writer';
import { RespMap, kNoReply } from '../core/engine/reply';
import { ReplyQueue } from './reply-queue';

function setup(): { q: ReplyQueue; out: () => string } {
  const w = new ReplyWriter();
  return { q: new ReplyQueue(w), out: () => Buffer.concat(w.take()).toString() };
}

describe('ReplyQueue', () => {
  it('headOnLane: the oldest reply owed is a lane round trip (the client may hold what is encoded for it), not a blocked command', () => {
    const { q, out } = setup();
    assert.equal(q.headOnLane, false);
    q.done('hit', false, 2);
    const miss = q.open(false, 2, true);
    assert.equal(q.headOnLane, true);
    const blocked = q.open(false, 2);
    q.fill(miss, 'row');
    q.drain();
    assert.equal(q.headOnLane, false, 'a BLPOP-like slot at the head: nothing may wait for it');
    q.fill(blocked, 'popped');
    q.drain();
    assert.equal(q.headOnLane, false);
    assert.equal(out(), '$3\r\nhit\r\n$3\r\nrow\r\n$6\r\npopped\r\n');
  });

  it('writes a reply known at once straight away while nothing waits', () => {
    const { q, out } = setup();
    q.done(1, false, 2);
    q.done('v', false, 2);
    assert.equal(q.pending, 0);
    assert.equal(out(), ':1\r\n$1\r\nv\r\n');
  });

  it('keeps request order: replies behind a waiting one wait for it', () => {
    const { q, out } = setup();
    const first = q.open(false, 2);
    q.done(2, false, 2);
    const third = q.open(false, 2);
    q.done(4, false, 2);
    assert.equal(q.pending, 4);
    q.fill(third, 3);
    q.drain();
    assert.equal(out(), '');
    q.fill(first, 1);
    q.drain();
    assert.equal(out(), ':1\r\n:2\r\n:3\r\n:4\r\n');
    assert.equal(q.pending, 0);
  });

  it('silent slots and kNoReply write nothing; each slot keeps the protocol it ran under', () => {
    const { q, out } = setup();
    const a = q.open(false, 2);
    q.done(new RespMap(['k', 1]), false, 3);
    q.done(7, true, 2);
    q.done(kNoReply, false, 2);
    q.fill(a, new RespMap(['k', 1]));
    q.drain();
    assert.equal(out(), '*2\r\n$1\r\nk\r\n:1\r\n%1\r\n$1\r\nk\r\n:1\r\n');
  });

  it('a long queue whose head drains is compacted, not grown', () => {
    const { q, out } = setup();
    const slots = Array.from({ length: 3000 }, () => q.open(false, 2));
    for (let i = 0; i < 2000; i++) q.fill(slots[i], 0);
    q.drain();
    assert.equal(q.pending, 1000);
    assert.equal(out().length, 2000 * 4);
    for (let i = 2000; i < 3000; i++) q.fill(slots[i], 0);
    q.drain();
    assert.equal(q.pending, 0);
  });
});
