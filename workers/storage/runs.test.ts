import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchOp, IncrOp, ReadOp, StmtOp, TxOp, WriteOp, type Op } from '../../core/engine/ops';
import { countReply } from '../../core/engine/commands/exec';
import { kHsetBatch } from '../../core/engine/commands/hash/hset-batch';
import { kListPopBatch } from '../../core/engine/commands/list/pop-batch';
import { kPushBatch } from '../../core/engine/commands/list/push-batch';
import { kSaddBatch } from '../../core/engine/commands/set/sadd-batch';
import { kSpopBatch } from '../../core/engine/commands/set/spop-batch';
import { kZpopBatch } from '../../core/engine/commands/zset/zpop-batch';
import { runEnd } from './runs';

const b = (s: string) => Buffer.from(s);
const nil = () => null;
const get = (k: string) => new ReadOp(0, b(k), null, nil);
const set = (k: string) => new WriteOp(0, b(k), b('v'), null, null);
const incr = (k: string) => new IncrOp(0, b(k), 1n, nil);
const stmt = () => new StmtOp({ text: 'SELECT 1' }, [], nil);
const push = (k: string, left = true, onlyExisting = false, db = 0) =>
  new BatchOp(kPushBatch, { db, key: b(k), elements: [b('e')], left, onlyExisting }, countReply);
const sadd = (k: string) => new BatchOp(kSaddBatch, { db: 0, key: b(k), members: [b('m')] }, countReply);
const hset = (k: string) => new BatchOp(kHsetBatch, { db: 0, key: b(k), fields: [b('f')], values: [b('v')] }, countReply);
const lpop = (k: string, left = true, count: bigint | null = null, db = 0) =>
  new BatchOp(kListPopBatch, { db, key: b(k), left, count }, null);
const zpop = (k: string, max = false, count: bigint | null = null) =>
  new BatchOp(kZpopBatch, { db: 0, key: b(k), max, count, nested: false }, null);
const spop = (k: string, count: bigint | null = null) => new BatchOp(kSpopBatch, { db: 0, key: b(k), count }, null);

/** the runs a batch is cut into, as lengths */
function cut(batch: Op[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < batch.length;) {
    const j = runEnd(batch, i);
    out.push(j - i);
    i = j;
  }
  return out;
}

describe('cutting a batch into runs', () => {
  it('joins consecutive reads, writes and increments of any keys; statements and transactions run alone', () => {
    assert.deepEqual(cut([get('a'), get('b'), set('a'), set('c'), set('a'), incr('x'), incr('x'), get('a')]), [2, 3, 2, 1]);
    assert.deepEqual(cut([stmt(), stmt(), new TxOp([], []), new TxOp([], [])]), [1, 1, 1, 1]);
    assert.deepEqual(cut([get('a'), stmt(), get('a')]), [1, 1, 1]);
  });

  it('joins a family\'s ops only where its Batch says so: one key, one end, one X-ness, one db', () => {
    assert.deepEqual(cut([push('l'), push('l'), push('l')]), [3]);
    assert.deepEqual(cut([push('l'), push('m'), push('l')]), [1, 1, 1]);
    assert.deepEqual(cut([push('l'), push('l', false), push('l', true, true), push('l', true, true)]), [1, 1, 2]);
    assert.deepEqual(cut([push('l'), push('l', true, false, 1)]), [1, 1]);
    assert.deepEqual(cut([sadd('s'), sadd('s'), hset('s'), hset('s'), sadd('s')]), [2, 2, 1]);
  });

  it('joins pops of one key from one end, with and without counts; another key, end, db or pop kind cuts', () => {
    assert.deepEqual(cut([lpop('l'), lpop('l', true, 3n), lpop('l', true, 0n), lpop('l')]), [4]);
    assert.deepEqual(cut([lpop('l'), lpop('l', false), lpop('l', false, 2n), lpop('m', false), lpop('m', false, null, 1)]), [1, 2, 1, 1]);
    assert.deepEqual(cut([zpop('z'), zpop('z', false, 2n), zpop('z', true), spop('z'), spop('z', 5n), spop('y')]), [2, 1, 2, 1]);
    assert.deepEqual(cut([push('l'), lpop('l'), lpop('l'), push('l')]), [1, 2, 1]);
  });

  it('never joins across families or across another op (HSETNX is a statement: it splits an HSET run)', () => {
    assert.deepEqual(cut([push('k'), sadd('k'), hset('k')]), [1, 1, 1]);
    assert.deepEqual(cut([hset('h'), stmt(), hset('h'), hset('h')]), [1, 1, 2]);
    assert.deepEqual(cut([sadd('s'), get('s'), sadd('s')]), [1, 1, 1]);
  });
});
