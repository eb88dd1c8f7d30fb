import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchOp, IncrOp, ReadOp, StmtOp, TxOp, WriteOp, type Op } from '../../core/engine/ops';
import { kPushBatch } from '../../core/engine/commands/list/push-batch';
import { PendingReply } from '../../core/engine/pending-reply';
import type { WatchedKey } from '../../core/engine/session';
import { batchLength, followLength, mayLead, opBytes } from './take';

const nil = () => null;
const get = (key: string) => new ReadOp(0, Buffer.from(key), null, nil);
const set = (key: string, bytes: number) => new WriteOp(0, Buffer.from(key), Buffer.alloc(bytes), null, null);

describe('taking a batch', () => {
  it('takes at most max commands', () => {
    const q = Array.from({ length: 10 }, (_, i) => get(`k${i}`));
    assert.equal(batchLength(q, 4, 1 << 20), 4);
    assert.equal(batchLength(q, 256, 1 << 20), 10);
    assert.equal(batchLength(q.slice(0, 1), 1, 1), 1);
  });

  it('stops after the op that reaches max bytes (that op still goes: a batch is never empty)', () => {
    const q = [set('a', 1000), set('b', 1000), set('c', 1000)];
    const one = opBytes(q[0]);
    assert.equal(one, 16 + 1 + 1000);
    assert.equal(batchLength(q, 256, one * 2), 2);
    assert.equal(batchLength(q, 256, one * 2 + 1), 3);
    assert.equal(batchLength(q, 256, 10), 1);
  });

  it('counts every argument of an op: MSET pairs, MGET keys, arrays of a statement, a transaction\'s ops', () => {
    const kv = [Buffer.from('k1'), Buffer.alloc(10), Buffer.from('k2'), Buffer.alloc(20)];
    assert.equal(opBytes(new WriteOp(0, null, null, kv, null)), 16 + 34);
    assert.equal(opBytes(new ReadOp(0, null, [Buffer.from('abc'), Buffer.from('de')], nil)), 16 + 5);
    const stmt = new StmtOp({ text: 'SELECT 1' }, ['0', Buffer.alloc(7), [Buffer.alloc(100), Buffer.alloc(50)]], nil);
    assert.equal(opBytes(stmt), 16 + 8 + 7 + (8 + 150));
    assert.equal(opBytes(new TxOp([get('a'), get('bb')], [])), 16 + 17 + 18);
  });

  it('leaves a transaction whose WATCH is still in flight to the next batch', () => {
    const watch: WatchedKey = { db: 0, key: Buffer.from('w'), version: '0', mark: false, pending: new PendingReply() };
    const q: Op[] = [get('a'), new TxOp([], [watch]), get('b')];
    assert.equal(batchLength(q, 256, 1 << 20), 1);
    watch.pending = undefined;
    assert.equal(batchLength(q, 256, 1 << 20), 3);
    // first in the queue it goes (a batch is never empty), and what follows it too
    watch.pending = new PendingReply();
    assert.equal(batchLength(q.slice(1), 256, 1 << 20), 2);
  });

  it('a batch behind one in flight takes plain ops only: it stops at a transaction or a statement op, within the same bounds', () => {
    const stmt = new StmtOp({ text: 'SELECT 1' }, [], nil);
    assert.equal(followLength([get('a'), set('b', 10), stmt, get('c')], 256, 1 << 20), 2);
    assert.equal(followLength([new TxOp([], []), get('a')], 256, 1 << 20), 0);
    assert.equal(followLength([stmt], 256, 1 << 20), 0);
    assert.equal(followLength(Array.from({ length: 10 }, (_, i) => get(`k${i}`)), 4, 1 << 20), 4);
    assert.equal(followLength([set('a', 1000), set('b', 1000), set('c', 1000)], 256, 10), 1);
  });

  it('a batch may follow only a run that cannot be a deadlock victim: reads, or every op on one key', () => {
    const push = (k: string) => new BatchOp(kPushBatch, { db: 0, key: Buffer.from(k), elements: [Buffer.from('e')], left: true, onlyExisting: false }, nil);
    const incr = (k: string) => new IncrOp(0, Buffer.from(k), 1n, nil);
    assert.equal(mayLead([get('a'), get('b')]), true);
    assert.equal(mayLead([push('l'), push('l'), push('l')]), true);
    assert.equal(mayLead([push('l'), push('m')]), false);
    assert.equal(mayLead([incr('n'), incr('n')]), true);
    assert.equal(mayLead([incr('n'), incr('o')]), false);
    assert.equal(mayLead([set('a', 1)]), false);
    assert.equal(mayLead([new StmtOp({ text: 'SELECT 1' }, [], nil)]), false);
  });
});
