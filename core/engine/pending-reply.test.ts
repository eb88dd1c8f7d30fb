import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PendingReply } from './pending-reply';

describe('PendingReply', () => {
  it('calls its listener synchronously, once, with the first value', () => {
    const p = new PendingReply();
    const got: unknown[] = [];
    p.listener = (v) => got.push(v);
    assert.equal(p.done, false);
    p.settle('a');
    assert.deepEqual(got, ['a']);
    p.settle('b');
    assert.deepEqual(got, ['a']);
    assert.equal(p.value, 'a');
    assert.equal(p.done, true);
  });

  it('can be awaited before and after it is settled', async () => {
    const early = new PendingReply();
    const waiting = (async () => await early)();
    early.settle(42);
    assert.equal(await waiting, 42);
    const late = new PendingReply();
    late.settle(null);
    assert.equal(await late, null);
    assert.deepEqual(await Promise.all([late, early]), [null, 42]);
  });

  it('serves a listener and awaiting code at the same time', async () => {
    const p = new PendingReply();
    let heard: unknown;
    p.listener = (v) => (heard = v);
    const awaited = p.then((v) => `then:${String(v)}`);
    p.settle('x');
    assert.equal(heard, 'x');
    assert.equal(await awaited, 'then:x');
  });
});
