/**
 * --batch-gather-ms (lane.ts gather): with ops queued when a batch answers, the lane waits for the
 * answered clients' next ops (at most gatherMs) and sends both halves as one batch. Ops submitted
 * straight to a Lane against the real Postgres; "clients" are closed loops that submit their next
 * op when the last one settled, as redis-benchmark -P 1 does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StmtOp, WriteOp, type Op } from '../../core/engine/ops';
import type { Reply } from '../../core/engine/reply';
import { RespError } from '../../core/engine/reply';
import { kOk } from '../../core/engine/shared-replies';
import { startupOptions } from '../../core/primary/postgres/schema';
import { testPgUrl } from '../../test/support/pg';
import { freshKeyspace } from '../../test/support/keyspace';
import { Lane } from './lane';

const b = (s: string) => Buffer.from(s);
const set = (k: string, v: string) => new WriteOp(0, b(k), b(v), null, null);

describe('a lane gathers the clients of the batch that answered (--batch-gather-ms)', () => {
  let schema = '';
  let drop: () => Promise<void>;
  let gatherMs = 0;
  const lanes: Lane[] = [];

  /** minFlightUs 0: every batch may gather (these batches are back in ~0.1–0.3 ms, under the lane's default) */
  async function newLane(minFlightUs = 0): Promise<Lane> {
    const lane = new Lane({
      url: testPgUrl(), startupOptions: startupOptions('unlogged', schema), log: () => undefined,
      maxCommands: () => 256, maxBytes: () => 4 << 20, batchTransaction: () => true, gatherMs: () => gatherMs,
      gatherMinFlightUs: minFlightUs,
    });
    await lane.start();
    lanes.push(lane);
    return lane;
  }

  /** the stats' batch-size histogram has log2 buckets: count batches and ops instead */
  const counts = (lane: Lane) => { const s = lane.snapshot(); return { batches: s.batches, ops: s.ops }; };

  /**
   * n closed-loop clients (keys gather:from … from+n-1), `rounds` SETs each, the next one submitted
   * in a later event-loop turn than the reply (as a socket's next command arrives), or in the reply's
   * own callback (`sync`: an in-process caller); resolves to every client's replies in order
   */
  function clients(lane: Lane, from: number, n: number, rounds: number, sync = false): Promise<Reply[][]> {
    return Promise.all(Array.from({ length: n }, (_, c) => new Promise<Reply[]>((resolve) => {
      const replies: Reply[] = [];
      const next = (): void => {
        if (replies.length === rounds) return resolve(replies);
        const op = set(`gather:${from + c}`, String(replies.length));
        op.listener = (r) => { replies.push(r); if (sync) next(); else setImmediate(next); };
        lane.submit(op);
      };
      next();
    })));
  }

  /** 4 clients (gather:0-3), then in a later turn 4 more (gather:4-7) that queue behind the first batch */
  async function twoHalves(lane: Lane, rounds: number, sync = false): Promise<Reply[][]> {
    const firstHalf = clients(lane, 0, 4, rounds, sync);
    await new Promise((r) => setImmediate(r));
    const secondHalf = clients(lane, 4, 4, rounds, sync);
    return [...await firstHalf, ...await secondHalf];
  }

  before(async () => {
    ({ schema, drop } = await freshKeyspace('lane_gather'));
  });
  after(async () => {
    for (const l of lanes) await l.close();
    await drop?.();
  });

  it('two halves taking turns become one batch: 8 closed-loop clients, 4 then 4 behind it, send batches of 8', async () => {
    gatherMs = 50;
    const lane = await newLane();
    for (const r of await twoHalves(lane, 20)) assert.deepEqual(r, new Array(20).fill(kOk));
    const { batches, ops } = counts(lane);
    assert.equal(ops, 160);
    // 4, then 8 a batch (the answered four came back before the queued four went): ~21 batches;
    // without the gather the halves alternate, 4 a batch: 40
    assert.ok(batches <= 24, `${batches} batches for 160 ops`);
    const rows = await readBack(lane, 8);
    assert.deepEqual(rows, new Array(8).fill('19'));
  });

  it('off (0): the halves alternate, 4 ops a batch', async () => {
    gatherMs = 0;
    const lane = await newLane();
    await twoHalves(lane, 20);
    const { batches } = counts(lane);
    assert.ok(batches >= 36, `${batches} batches for 160 ops`);
  });

  it('ops the answer itself submits (in-process callers) count as arrived: no wait for the timer', async () => {
    // the last round's queued half waits once (its other half stopped): each round waiting would take 10 s
    gatherMs = 1000;
    const lane = await newLane();
    const t0 = Date.now();
    for (const r of await twoHalves(lane, 10, true)) assert.deepEqual(r, new Array(10).fill(kOk));
    assert.ok(Date.now() - t0 < 3500, `took ${Date.now() - t0} ms`);
  });

  it('clients that do not come back delay the queue by gatherMs at most', async () => {
    gatherMs = 30;
    const lane = await newLane();
    const a = set('gather:lone-a', '1');
    lane.submit(a);
    await new Promise((r) => setImmediate(r));
    const queued = set('gather:lone-b', '1');
    let answeredA = 0n;
    a.listener = () => { answeredA = process.hrtime.bigint(); };
    lane.submit(queued);
    assert.equal(await queued, kOk);
    const waited = Number(process.hrtime.bigint() - answeredA) / 1e6;
    assert.ok(waited >= 25 && waited < 1000, `queued op went out ${waited} ms after the batch before it answered`);
  });

  it('a batch back sooner than the minimum flight does not gather: the halves alternate as with the option off', async () => {
    gatherMs = 50;
    const lane = await newLane(60_000_000);
    await twoHalves(lane, 20);
    const { batches } = counts(lane);
    assert.ok(batches >= 36, `${batches} batches for 160 ops`);
  });

  /** a's batch answers with b queued behind it; resolves to how long b went out after a answered (ms) */
  async function queuedBehind(lane: Lane, tag: string): Promise<number> {
    const a = set(`gather:${tag}-a`, '1');
    lane.submit(a);
    await new Promise((r) => setImmediate(r));
    const queued = set(`gather:${tag}-b`, '1');
    let answeredA = 0n;
    a.listener = () => { answeredA = process.hrtime.bigint(); };
    lane.submit(queued);
    assert.equal(await queued, kOk);
    return Number(process.hrtime.bigint() - answeredA) / 1e6;
  }

  it('after a gather ran out its time, the next batches go out at once (clients that never come back wait once, not per batch)', async () => {
    gatherMs = 300;
    const lane = await newLane();
    const first = await queuedBehind(lane, 'backoff-1');
    assert.ok(first >= 250, `the first queued op went out ${first} ms after the batch before it answered`);
    for (let i = 2; i <= 4; i++) {
      const next = await queuedBehind(lane, `backoff-${i}`);
      assert.ok(next < 150, `queued op ${i} went out ${next} ms after the batch before it answered (backoff)`);
    }
  });

  it('a failing statement in a gathered batch fails alone; the others answer in order', async () => {
    gatherMs = 50;
    const lane = await newLane();
    const failing: Op = new StmtOp({ text: 'SELECT 1/0' }, [], () => 1);
    // first half: 3 clients; second half: one plain SET and the failing statement, queued behind it
    const firstHalf = clients(lane, 20, 3, 3);
    await new Promise((r) => setImmediate(r));
    const queuedSet = set('gather:q', 'x');
    lane.submit(queuedSet);
    lane.submit(failing);
    const after = set('gather:after', 'y');
    lane.submit(after);
    for (const r of await firstHalf) assert.deepEqual(r, [kOk, kOk, kOk]);
    assert.equal(await queuedSet, kOk);
    const err = await failing;
    assert.ok(err instanceof RespError && /22012/.test(err.text), String(err));
    assert.equal(await after, kOk);
  });

  /** the values of gather:0 … gather:n-1, read through the lane */
  async function readBack(lane: Lane, n: number): Promise<string[]> {
    const op = new StmtOp({ text: `SELECT convert_from(value, 'UTF8') FROM kv WHERE db = 0 AND key = ANY ($1::bytea[]) ORDER BY key` },
      [Array.from({ length: n }, (_, c) => b(`gather:${c}`))], (rows) => rows.map((r) => String(r[0])) as unknown as Reply);
    lane.submit(op);
    return (await op) as unknown as string[];
  }
});
