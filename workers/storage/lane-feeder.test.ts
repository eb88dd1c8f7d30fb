/**
 * --shared-lanes' ring (core/engine/lane-ring.ts) between a forwarder (lane-feeder-forward.ts)
 * and an owner's feed (lane-feeder.ts), both in this thread, on a real lane: records that wrap
 * the ring's end, a full ring, a record too large for it, and an owner replaced mid-op.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ReadOp, WriteOp } from '../../core/engine/ops';
import type { Reply } from '../../core/engine/reply';
import type { Session } from '../../core/engine/session';
import { kOk } from '../../core/engine/shared-replies';
import { getReply } from '../../core/engine/commands/string/get';
import { kDataBytes, kMaxRecord, kTaken, newLaneRingBuffer } from '../../core/engine/lane-ring';
import { migrate } from '../../core/primary/postgres/migrations';
import { startupOptions } from '../../core/primary/postgres/schema';
import { freshSchema, testPgUrl } from '../../test/support/pg';
import { Lane } from './lane';
import { RingForwarder } from './lane-feeder-forward';
import { RingFeed } from './lane-feeder';

describe('shared lanes: the ring between two workers', () => {
  let lane: Lane;
  let schema = '';
  let drop: () => Promise<void>;
  const newLane = () => new Lane({
    url: testPgUrl(), startupOptions: startupOptions('unlogged', schema), log: () => undefined,
    maxCommands: () => 256, maxBytes: () => 4 << 20, batchTransaction: () => true,
  });

  before(async () => {
    const fresh = await freshSchema('lane_feeder');
    schema = fresh.schema;
    drop = fresh.drop;
    await migrate(testPgUrl(), { schema, storageMode: 'unlogged', convertStorageMode: false });
    lane = newLane();
    await lane.start();
  });
  after(async () => {
    await lane.close();
    await drop();
  });

  const read = async (key: string): Promise<Reply> => {
    const op = new ReadOp(0, Buffer.from(key), null, getReply);
    lane.submit(op);
    return op;
  };

  it('3 MB of SETs from 8 sessions: the ring wraps and fills, each key ends with its last write', async () => {
    const buffer = newLaneRingBuffer();
    const forwarder = new RingForwarder(buffer);
    const feed = new RingFeed(buffer, lane);
    // the forwarder's own lane is a second connection: a SET that does not fit waits and goes there
    const own = newLane();
    await own.start();
    try {
      const sessions = Array.from({ length: 8 }, () => ({}) as Session);
      const ops: WriteOp[] = [];
      for (let i = 0; i < 3000; i++) {
        const value = Buffer.alloc(1000 + (i % 24), 97 + (i % 26));
        const op = new WriteOp(0, Buffer.from(`ring:${i % 8}:${i % 5}`), value, null, null);
        forwarder.submit(sessions[i % 8], op, own);
        ops.push(op);
      }
      assert.ok(forwarder.forwarded > 0 && forwarder.forwarded < 3000, `forwarded ${forwarder.forwarded}: some, not all (the ring holds ${kDataBytes} bytes)`);
      assert.deepEqual(await Promise.all(ops), ops.map(() => kOk));
      for (let s = 0; s < 8; s++) {
        for (let k = 0; k < 5; k++) {
          let last = -1;
          for (let i = 0; i < 3000; i++) if (i % 8 === s && i % 5 === k) last = i;
          const got = await read(`ring:${s}:${k}`) as Buffer;
          assert.ok(got.equals(Buffer.alloc(1000 + (last % 24), 97 + (last % 26))), `ring:${s}:${k} holds write ${last}`);
        }
      }
      // the owner's batches were large: a fresh SET stays on the forwarder's lane (kForwardBelow)
      const before = forwarder.forwarded;
      feed.ownerBatch(256);
      const local = new WriteOp(0, Buffer.from('ring:local'), Buffer.from('l'), null, null);
      forwarder.submit({} as Session, local, own);
      assert.equal(await local, kOk);
      assert.equal(forwarder.forwarded, before);
      // small again: forwarded, and after the wrap the counters carry on
      feed.ownerBatch(3);
      const again = new WriteOp(0, Buffer.from('ring:again'), Buffer.from('v'), null, 1e15);
      forwarder.submit({} as Session, again, own);
      assert.equal(await again, kOk);
      assert.equal(forwarder.forwarded, before + 1);
      assert.equal(String(await read('ring:again')), 'v');
    } finally {
      await own.close();
    }
  });

  it('a value larger than a ring record runs on the forwarder\'s own lane', async () => {
    const buffer = newLaneRingBuffer();
    const forwarder = new RingForwarder(buffer);
    new RingFeed(buffer, lane);
    const op = new WriteOp(0, Buffer.from('ring:big'), Buffer.alloc(kMaxRecord + 1, 120), null, null);
    forwarder.submit({} as Session, op, lane);
    assert.equal(await op, kOk);
    assert.equal(forwarder.forwarded, 0);
    assert.equal((await read('ring:big') as Buffer).length, kMaxRecord + 1);
  });

  it('a replacement owner answers what its predecessor took and never answered', async () => {
    const buffer = newLaneRingBuffer();
    const forwarder = new RingForwarder(buffer);
    // an owner whose lane never connects: it takes the op and holds it
    new RingFeed(buffer, newLane());
    const op = new WriteOp(0, Buffer.from('ring:orphan'), Buffer.from('x'), null, null);
    forwarder.submit({} as Session, op, lane);
    // taken once the forwarder published (next turn) and the owner woke: a loaded machine takes a while
    const ctl = new Int32Array(buffer, 0, 8);
    for (let i = 0; i < 500 && Atomics.load(ctl, kTaken) === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(Atomics.load(ctl, kTaken), 1);
    assert.equal(op.done, false);
    new RingFeed(buffer, lane);
    const reply = await op;
    assert.match((reply as { text: string }).text, /^ERR PostgreSQL unavailable: lane owner worker exited/);
  });
});
