/**
 * --lane-spill (lane-store.ts laneOf): a client with nothing unanswered goes to the first lane
 * unless that lane has a batch in Postgres and `spill` ops queued; a client with an op unanswered
 * stays on that op's lane, so its commands still execute and answer in the order it sent them.
 * Ops submitted through a real LaneStore (two lanes) against the real Postgres.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IncrOp, WriteOp } from '../../core/engine/ops';
import type { Reply } from '../../core/engine/reply';
import type { Session } from '../../core/engine/session';
import { kOk } from '../../core/engine/shared-replies';
import { startupOptions } from '../../core/primary/postgres/schema';
import { testPgUrl } from '../../test/support/pg';
import { freshKeyspace } from '../../test/support/keyspace';
import { LaneStore } from './lane-store';

const b = (s: string) => Buffer.from(s);
/** what LaneStore reads of a session: its identity (the placement is keyed by it) and its unacknowledged writes */
const session = (id: number) => ({ id, unackedWrites: 0 }) as unknown as Session;

describe('lanes filled in order, a client kept on its lane while it waits (--lane-spill)', () => {
  let schema = '';
  let drop: () => Promise<void>;
  let spill = 32;
  const stores: LaneStore[] = [];

  async function newStore(): Promise<LaneStore> {
    const store = new LaneStore(2, {
      url: testPgUrl(), startupOptions: startupOptions('unlogged', schema), log: () => undefined,
      maxCommands: () => 256, maxBytes: () => 4 << 20, batchTransaction: () => true,
      scriptConnections: 1, laneSpill: () => spill,
    });
    await store.start();
    stores.push(store);
    return store;
  }

  const ops = (store: LaneStore) => store.lanes.map((l) => l.snapshot().ops);

  /** n closed-loop clients, one SET at a time, the next in a later turn than the reply (as redis-benchmark -P 1) */
  function closedLoop(store: LaneStore, n: number, rounds: number): Promise<Reply[][]> {
    return Promise.all(Array.from({ length: n }, (_, c) => new Promise<Reply[]>((resolve) => {
      const s = session(c);
      const replies: Reply[] = [];
      const next = (): void => {
        if (replies.length === rounds) return resolve(replies);
        const op = new WriteOp(0, b(`spill:loop:${c}`), b(String(replies.length)), null, null);
        op.listener = (r) => { replies.push(r); setImmediate(next); };
        store.submit(s, op);
      };
      next();
    })));
  }

  /**
   * n clients, each sending `depth` INCRs of its own counter at once (a pipeline), `rounds` times;
   * resolves to each client's replies by the order it sent the INCRs, and the order they were answered in
   */
  function pipelines(store: LaneStore, prefix: string, n: number, depth: number, rounds: number): Promise<{ values: bigint[]; order: number[] }[]> {
    return Promise.all(Array.from({ length: n }, (_, c) => new Promise<{ values: bigint[]; order: number[] }>((resolve) => {
      const s = session(1000 + c);
      const values: bigint[] = [];
      const order: number[] = [];
      let round = 0;
      const send = (): void => {
        if (round === rounds) return resolve({ values, order });
        let left = depth;
        for (let i = 0; i < depth; i++) {
          const sent = round * depth + i;
          const op = new IncrOp(0, b(`${prefix}:${c}`), 1n, (_status, value) => value);
          op.listener = (r) => { values[sent] = r as bigint; order.push(sent); if (--left === 0) setImmediate(send); };
          store.submit(s, op);
        }
        round++;
      };
      // client c starts c turns late, as sockets' reads arrive: later ones find the first lane's batch in flight
      let wait = c;
      const start = (): void => { if (wait-- === 0) send(); else setImmediate(start); };
      start();
    })));
  }

  /** the INCR sent k-th executed k-th (its value is k) and was answered k-th */
  const inOrder = (r: { values: bigint[]; order: number[] }, n: number) => {
    const sent = Array.from({ length: n }, (_, i) => i);
    assert.deepEqual(r.values, sent.map((i) => BigInt(i + 1)));
    assert.deepEqual(r.order, sent);
  };

  before(async () => {
    ({ schema, drop } = await freshKeyspace('lane_spill'));
  });
  after(async () => {
    for (const s of stores) await s.close();
    await drop?.();
  });

  it('12 closed-loop clients at depth 1 stay on the first lane (spill 32): batches of both halves, not half each', async () => {
    spill = 32;
    const store = await newStore();
    const replies = await closedLoop(store, 12, 20);
    for (const r of replies) assert.deepEqual(r, Array(20).fill(kOk));
    const [first, second] = ops(store);
    assert.equal(first, 240);
    assert.equal(second, 0, 'the second lane took nothing while the first never had 32 queued');
  });

  it('deep pipelines spill to the second lane, and every client\'s INCRs still answer 1, 2, 3… in order (spill 4)', async () => {
    spill = 4;
    const store = await newStore();
    const answered = await pipelines(store, 'spill:deep', 16, 16, 6);
    for (const a of answered) inOrder(a, 96);
    const [first, second] = ops(store);
    assert.equal(first + second, 16 * 16 * 6);
    assert.ok(second > 0, `the second lane took ops (first ${first}, second ${second})`);
    assert.ok(first > 0);
  });

  it('spill 0 pins each client to a lane round robin on its first command, as before the option', async () => {
    spill = 0;
    const store = await newStore();
    const replies = await closedLoop(store, 6, 10);
    for (const r of replies) assert.deepEqual(r, Array(10).fill(kOk));
    assert.deepEqual(ops(store), [30, 30]);
  });

  it('a client whose op is unanswered follows it to its lane even when that lane is the busier one', async () => {
    spill = 1;
    const store = await newStore();
    // one client's 40 pipelined INCRs: the first goes to lane 0; every later one finds its
    // predecessor unanswered and queues behind it there, though lane 0 is past the spill
    const answered = await pipelines(store, 'spill:one', 1, 40, 1);
    inOrder(answered[0], 40);
    assert.deepEqual(ops(store), [40, 0]);
  });
});
