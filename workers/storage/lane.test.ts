/**
 * A lane's runs against the real Postgres (a fresh schema, the real migrations and functions),
 * ops submitted straight to a Lane: everything submitted in one event-loop turn is one batch, so
 * each test decides exactly what a batch holds and reads the statement count from the lane's stats.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BatchOp, IncrOp, OpKind, ReadOp, StmtOp, TxOp, WriteOp, type Op } from '../../core/engine/ops';
import type { Reply } from '../../core/engine/reply';
import { RespError } from '../../core/engine/reply';
import { Err } from '../../core/engine/resp-errors';
import { kOk } from '../../core/engine/shared-replies';
import { countReply } from '../../core/engine/commands/exec';
import { getReply } from '../../core/engine/commands/string/get';
import { mgetReply } from '../../core/engine/commands/string/mget';
import { kHsetBatch } from '../../core/engine/commands/hash/hset-batch';
import { kPushBatch } from '../../core/engine/commands/list/push-batch';
import { kSaddBatch } from '../../core/engine/commands/set/sadd-batch';
import { kZaddBatch } from '../../core/engine/commands/zset/zadd-batch';
import { startupOptions } from '../../core/primary/postgres/schema';
import { testPgUrl } from '../../test/support/pg';
import { freshKeyspace } from '../../test/support/keyspace';
import { inOneTransaction, Lane } from './lane';
import { writeArrays } from './write-run';

const b = (s: string) => Buffer.from(s);
const str = (r: Reply) => (Buffer.isBuffer(r) ? r.toString() : r);
const get = (k: string) => new ReadOp(0, b(k), null, getReply);
const mget = (...k: string[]) => new ReadOp(0, null, k.map(b), mgetReply);
const set = (k: string, v: string) => new WriteOp(0, b(k), b(v), null, null);
const mset = (...kv: string[]) => new WriteOp(0, null, null, kv.map(b), null);
const incr = (k: string, by: bigint) => new IncrOp(0, b(k), by, (status, v) => (status === 1 ? v : status));
const sadd = (k: string, ...m: string[]) => new BatchOp(kSaddBatch, { db: 0, key: b(k), members: m.map(b) }, countReply);
const hset = (k: string, ...fv: string[]) => new BatchOp(kHsetBatch,
  { db: 0, key: b(k), fields: fv.filter((_, i) => i % 2 === 0).map(b), values: fv.filter((_, i) => i % 2 === 1).map(b) }, countReply);
const push = (k: string, left: boolean, onlyExisting: boolean, ...e: string[]) =>
  new BatchOp(kPushBatch, { db: 0, key: b(k), elements: e.map(b), left, onlyExisting }, countReply);
const sql = (text: string) => new StmtOp({ text }, [], (rows) => rows.length);
const zadd = (k: string, score: number, m: string, ch = false) =>
  new BatchOp(kZaddBatch, { db: 0, key: b(k), members: [b(m)], scores: [score], ch }, null);
/** a fresh copy of a SET / SET with expiry / SADD op on another key */
function retarget(op: Op, key: string): Op {
  if (op.kind === OpKind.Write) return new WriteOp(0, b(key), op.data, null, op.exp);
  if (op.kind === OpKind.Batch) return sadd(key, ...(op.args as { members: Buffer[] }).members.map(String));
  throw new Error('unexpected setup op');
}

describe('lane runs against Postgres', () => {
  let lane: Lane;
  let maxCommands = 256;
  /** the run tests count one statement per run: batches as one transaction are tested below */
  let batchTx = false;
  let drop: () => Promise<void>;

  /** submits ops in one turn (one batch when the lane is idle); resolves to their replies and the statements sent */
  async function batch(...ops: Op[]): Promise<{ replies: Reply[]; statements: number }> {
    const before = lane.snapshot().statements;
    for (const op of ops) lane.submit(op);
    const replies = await Promise.all(ops);
    return { replies, statements: lane.snapshot().statements - before };
  }

  let schema = '';

  /** a second lane on the schema, batches as one transaction (the deadlock tests' other side) */
  async function secondLane(): Promise<Lane> {
    const other = new Lane({
      url: testPgUrl(), startupOptions: startupOptions('unlogged', schema), log: () => undefined,
      maxCommands: () => 256, maxBytes: () => 4 << 20, batchTransaction: () => true,
    });
    await other.start();
    return other;
  }

  /** <name>_barrier(): returns once two sessions called it (≤ 10 s), counted in a sequence (not
   * rolled back, so a re-run passes at once) */
  const barrier = (name: string): Op[] => [sql(`CREATE SEQUENCE IF NOT EXISTS ${name}_arrivals`),
    sql(`CREATE OR REPLACE FUNCTION ${name}_barrier() RETURNS int LANGUAGE plpgsql AS $f$
      BEGIN
        PERFORM nextval('${name}_arrivals');
        FOR i IN 1..1000 LOOP
          EXIT WHEN (SELECT last_value FROM ${name}_arrivals) >= 2;
          PERFORM pg_sleep(0.01);
        END LOOP;
        RETURN 1;
      END $f$`)];

  before(async () => {
    const fresh = await freshKeyspace('lane_runs');
    schema = fresh.schema;
    drop = fresh.drop;
    lane = new Lane({
      url: testPgUrl(), startupOptions: startupOptions('unlogged', fresh.schema), log: () => undefined,
      maxCommands: () => maxCommands, maxBytes: () => 4 << 20, batchTransaction: () => batchTx,
    });
    await lane.start();
  });
  after(async () => {
    await lane?.close();
    await drop?.();
  });

  it('takes a batch within max commands: 7 ops at 3 a batch are 3 batches, answered in order', async () => {
    maxCommands = 3;
    try {
      const before = lane.snapshot().batches;
      const { replies } = await batch(set('t1', 'a'), set('t2', 'b'), get('t1'), get('t2'), get('t3'), set('t3', 'c'), get('t3'));
      assert.deepEqual(replies.map(str), [kOk, kOk, 'a', 'b', null, kOk, 'c']);
      assert.equal(lane.snapshot().batches - before, 3);
    } finally {
      maxCommands = 256;
    }
  });

  it('writes: one statement for a run, the last write of a key wins, rows in (db, key) order', async () => {
    const { replies, statements } = await batch(set('w:b', '1'), mset('w:a', '2', 'w:b', '3', 'w:c', '4'), set('w:a', '5'), set('w:b', '6'));
    assert.deepEqual(replies, [kOk, kOk, kOk, kOk]);
    assert.equal(statements, 1);
    const read = await batch(mget('w:a', 'w:b', 'w:c', 'w:none'));
    assert.deepEqual((read.replies[0] as Reply[]).map(str), ['5', '6', '4', null]);
    const [, keys, values] = writeArrays([set('z', '1'), mset('y', '2', 'x', '3', 'z', '4'), set('x', '5')]) as [Int16Array, Buffer[], Buffer[]];
    assert.deepEqual(keys.map(String), ['x', 'y', 'z']);
    assert.deepEqual(values.map(String), ['5', '2', '4']);
  });

  it('reads: each command\'s reply function decides what another type means (GET: WRONGTYPE, MGET: nil)', async () => {
    await batch(set('r:s', 'v'), sadd('r:set', 'm'));
    const { replies, statements } = await batch(get('r:s'), get('r:set'), get('r:none'), mget('r:set', 'r:s', 'r:none'));
    assert.equal(statements, 1);
    assert.deepEqual([str(replies[0]), replies[1], replies[2]], ['v', Err.wrongType, null]);
    assert.deepEqual((replies[3] as Reply[]).map(str), [null, 'v', null]);
  });

  it('increments: one incr_many() for the run, in order, each op its status', async () => {
    const { replies, statements } = await batch(set('i:s', 'abc'), incr('i:n', 5n), incr('i:n', -2n), incr('i:s', 1n),
      incr('i:n', 9223372036854775807n), incr('i:m', 1n));
    assert.equal(statements, 2);
    assert.deepEqual(replies, [kOk, 5n, 3n, 3, 4, 1n]);
  });

  /** each op in a batch of its own, one after another: what serial execution answers */
  async function serially(ops: Op[]): Promise<Reply[]> {
    const out: Reply[] = [];
    for (const op of ops) out.push((await batch(op)).replies[0]);
    return out;
  }

  it('increments on one key: one incr_run() for the run, every reply and the value as serial execution', async () => {
    const kMax = 9223372036854775807n;
    const cases: [string, Op[], bigint[]][] = [
      ['missing', [], [1n, 1n, 5n, 1n]],
      ['mixed signs', [], [3n, -7n, 2n, 0n, -1n]],
      ['overflow midway (mixed)', [set('KEY', String(kMax - 10n))], [5n, 6n, 4n, -20n, 30n, 1n]],
      ['overflow at the end (monotone)', [set('KEY', String(kMax - 3n))], [1n, 1n, 1n, 1n, 1n]],
      ['underflow (monotone)', [set('KEY', String(-kMax + 1n))], [-1n, -1n, -1n, -5n]],
      ['not an integer', [set('KEY', '12a')], [1n, 2n]],
      ['wrong type', [sadd('KEY', 'm')], [1n, -1n]],
      ['expired', [new WriteOp(0, b('KEY'), b('41'), null, Date.now() - 1000)], [1n, 2n]],
    ];
    for (const [name, setup, deltas] of cases) {
      const merged = `im:${name}`;
      const alone = `is:${name}`;
      const prepare = (key: string) => setup.length === 0 ? [] : [retarget(setup[0], key)];
      await serially(prepare(merged));
      await serially(prepare(alone));
      const run = await batch(...deltas.map((d) => incr(merged, d)));
      assert.equal(run.statements, 1, name);
      const serial = await serially(deltas.map((d) => incr(alone, d)));
      assert.deepEqual(run.replies, serial, name);
      const values = await batch(get(merged), get(alone));
      assert.deepEqual(values.replies.map(str), [str(values.replies[1]), str(values.replies[1])], name);
    }
  });

  it('increments on one key from two lanes at once: no update lost', async () => {
    const other = await secondLane();
    try {
      const ops: Op[] = [];
      for (let round = 0; round < 5; round++) {
        const ones = Array.from({ length: 40 }, () => incr('ic', 1n));
        const twos = Array.from({ length: 40 }, () => incr('ic', 2n));
        for (const op of ones) lane.submit(op);
        for (const op of twos) other.submit(op);
        await Promise.all([...ones, ...twos]);
        ops.push(...ones, ...twos);
      }
      const replies = (await Promise.all(ops)) as bigint[];
      assert.equal(new Set(replies).size, replies.length, 'every INCR saw its own value');
      const end = await batch(get('ic'));
      assert.equal(str(end.replies[0]), String(5 * 40 * 3));
      assert.equal(replies.reduce((a, v) => (v > a ? v : a), 0n), BigInt(5 * 40 * 3));
    } finally {
      await other.close();
    }
  });

  it('credits a merged SADD run: each op counts the members it adds first, as serial execution', async () => {
    await batch(sadd('s', 'a'));
    const { replies, statements } = await batch(sadd('s', 'a', 'b'), sadd('s', 'b', 'c'), sadd('s', 'c'), sadd('s', 'd', 'a', 'e'));
    assert.equal(statements, 1);
    assert.deepEqual(replies, [1, 1, 0, 2]);
  });

  it('credits a merged HSET run: new fields count once, the last value of a field wins', async () => {
    await batch(hset('h', 'f1', 'old'));
    const { replies, statements } = await batch(hset('h', 'f1', 'a', 'f2', 'b'), hset('h', 'f2', 'c', 'f3', 'd'), hset('h', 'f3', 'e'));
    assert.equal(statements, 1);
    assert.deepEqual(replies, [1, 1, 0]);
    const values = await batch(new StmtOp({ text: "SELECT string_agg(convert_from(field, 'UTF8') || '=' || convert_from(value, 'UTF8'), ',' ORDER BY field) FROM hashes WHERE key = 'h'" },
      [], (rows) => rows[0][0] as string));
    assert.equal(values.replies[0], 'f1=a,f2=c,f3=e');
  });

  it('runs naming one field or member from every op: the first op adding it counts 1, the last value wins', async () => {
    const first = await batch(hset('h1', 'f', 'a'), hset('h1', 'f', 'b'), hset('h1', 'f', 'c'), sadd('s1', 'm'), sadd('s1', 'm'));
    assert.equal(first.statements, 2);
    assert.deepEqual(first.replies, [1, 0, 0, 1, 0]);
    const again = await batch(hset('h1', 'f', 'd'), hset('h1', 'f', 'e'), sadd('s1', 'm'), sadd('s1', 'm'), hset('h1', 'g', 'x'), hset('h1', 'g', 'y'));
    assert.deepEqual(again.replies, [0, 0, 0, 0, 1, 0]);
    const values = await batch(new StmtOp({ text: "SELECT string_agg(convert_from(field, 'UTF8') || '=' || convert_from(value, 'UTF8'), ',' ORDER BY field) FROM hashes WHERE key = 'h1'" },
      [], (rows) => rows[0][0] as string));
    assert.equal(values.replies[0], 'f=e,g=y');
  });

  it('consecutive GETs of one key answer one reply object; another key between them reads its own', async () => {
    await batch(set('g:a', 'va'), set('g:b', 'vb'));
    const { replies, statements } = await batch(get('g:a'), get('g:a'), get('g:b'), get('g:a'), get('g:none'), get('g:none'));
    assert.equal(statements, 1);
    assert.deepEqual(replies.map(str), ['va', 'va', 'vb', 'va', null, null]);
    assert.equal(replies[0], replies[1], 'one reply object for the run of g:a');
    assert.notEqual(replies[3], replies[2]);
  });

  it('ZADD runs naming one member from every op: each op answers what serial execution would', async () => {
    const runs: [number, boolean][][] = [
      [[0, false], [0, false], [1, true], [1, true], [-0, true], [2, false], [2, true]],
      [[5, true], [5, false], [6, false], [6, true], [7, true]],
    ];
    for (const [k, run] of runs.entries()) {
      const [merged, alone] = [`zm:${k}`, `zs:${k}`];
      if (k === 1) await serially([zadd(merged, 5, 'm'), zadd(alone, 5, 'm')]);
      const got = await batch(...run.map(([score, ch]) => zadd(merged, score, 'm', ch)));
      assert.equal(got.statements, 1);
      assert.deepEqual(got.replies, await serially(run.map(([score, ch]) => zadd(alone, score, 'm', ch))), `run ${k}`);
    }
  });

  it('a merged run on a key of another type answers WRONGTYPE to every op', async () => {
    await batch(set('wt', 'v'));
    const { replies } = await batch(sadd('wt', 'a'), sadd('wt', 'b'), hset('wt', 'f', 'v'), hset('wt', 'g', 'v'),
      push('wt', true, false, 'x'), push('wt', true, false, 'y'));
    assert.deepEqual(replies, Array(6).fill(Err.wrongType));
  });

  it('push runs: one l_push() whose final length gives each op its serial reply', async () => {
    const { replies, statements } = await batch(push('l', true, false, 'a'), push('l', true, false, 'b', 'c'), push('l', true, false, 'd'),
      push('l', false, false, 'z'), push('lx', true, true, 'a'), push('lx', true, true, 'b'));
    assert.equal(statements, 3);
    assert.deepEqual(replies, [1, 3, 4, 5, 0, 0]);
    const list = await batch(new StmtOp({ text: "SELECT string_agg(convert_from(value, 'UTF8'), '' ORDER BY pos) FROM lists WHERE key = 'l'" },
      [], (rows) => rows[0][0] as string));
    assert.equal(list.replies[0], 'dcbaz');
  });

  it('a failing statement fails only its own run', async () => {
    const { replies, statements } = await batch(set('f:a', '1'), sql('SELECT 1/0'), set('f:b', '2'), sadd('f:s', 'm'), sadd('f:s', 'n'),
      sql('SELECT * FROM no_such_table'), get('f:a'));
    assert.equal(statements, 6);
    assert.equal(replies[0], kOk);
    assert.match((replies[1] as RespError).text, /^ERR PostgreSQL error 22012: division by zero/);
    assert.deepEqual([replies[2], replies[3], replies[4]], [kOk, 1, 1]);
    assert.match((replies[5] as RespError).text, /^ERR PostgreSQL error 42P01/);
    assert.equal(str(replies[6]), '1');
  });

  it('a transaction commits all its ops, each op run alone inside it', async () => {
    const ok = new TxOp([set('x:a', '1'), incr('x:n', 2n), sadd('x:s', 'a', 'b'), sadd('x:s', 'b', 'c'), push('x:l', false, false, 'e')], []);
    const { replies, statements } = await batch(ok);
    assert.equal(replies[0], kOk);
    assert.equal(statements, 7);
    assert.deepEqual(await Promise.all(ok.ops), [kOk, 2n, 2, 1, 1]);
  });

  it('a transaction with a failing statement commits nothing and says so: no queued reply is sent', async () => {
    await batch(set('y:a', '1'), incr('y:n', 2n));
    const inner = [set('y:a', 'changed'), incr('y:n', 1n), sql('SELECT 1/0'), sadd('y:s', 'c')];
    const out = await batch(new TxOp(inner, []), get('y:a'));
    assert.match((out.replies[0] as RespError).text, /^ERR transaction failed: division by zero/);
    assert.equal(str(out.replies[1]), '1');
    const after = await batch(get('y:a'), incr('y:n', 0n), sadd('y:s', 'c'));
    assert.deepEqual([str(after.replies[0]), after.replies[1], after.replies[2]], ['1', 2n, 1]);
  });

  describe('a batch of several runs as one transaction', () => {
    before(() => { batchTx = true; });
    after(() => { batchTx = false; });
    const txid = () => new StmtOp({ text: 'SELECT txid_current()::text' }, [], (rows) => rows[0][0] as string);

    it('commits once: every run of the batch sees the same transaction, and BEGIN and COMMIT are the only extra statements', async () => {
      const first = txid();
      const second = txid();
      const { replies, statements } = await batch(first, set('t:a', '1'), sadd('t:s', 'x'), incr('t:n', 1n), second);
      assert.equal(statements, 5 + 2);
      assert.equal(replies[0], replies[4]);
      assert.deepEqual(replies.slice(1, 4), [kOk, 1, 1n]);
      // alone, each run commits by itself: two different transactions
      batchTx = false;
      try {
        const alone = await batch(txid(), set('t:a', '2'), txid());
        assert.notEqual(alone.replies[0], alone.replies[2]);
      } finally {
        batchTx = true;
      }
    });

    it('a failing statement fails alone: the batch runs again run by run, nothing answered twice', async () => {
      const before = lane.snapshot();
      const { replies } = await batch(set('tf:a', '1'), sql('SELECT 1/0'), sadd('tf:s', 'm'), sadd('tf:s', 'm', 'n'), incr('tf:n', 5n), get('tf:a'));
      assert.equal(replies[0], kOk);
      assert.match((replies[1] as RespError).text, /^ERR PostgreSQL error 22012: division by zero/);
      // serial replies, not doubled by the rolled-back first attempt
      assert.deepEqual([replies[2], replies[3], replies[4], str(replies[5])], [1, 1, 5n, '1']);
      const after = lane.snapshot();
      assert.equal(after.txBatches - before.txBatches, 1);
      assert.equal(after.txRetries - before.txRetries, 1);
      const again = await batch(incr('tf:n', 0n), sadd('tf:s', 'n'));
      assert.deepEqual(again.replies, [5n, 0]);
    });

    it('MULTI/EXEC and WATCH keep their own transactions: a batch holding one runs run by run', () => {
      assert.equal(inOneTransaction([get('a'), set('b', '1')]), true);
      assert.equal(inOneTransaction([get('a'), get('b')]), false);
      assert.equal(inOneTransaction([set('a', '1'), new TxOp([set('b', '1')], []), get('a')]), false);
      class OwnTransaction extends StmtOp { override readonly ownTransaction = true; }
      assert.equal(inOneTransaction([set('a', '1'), new OwnTransaction({ text: 'SELECT 1' }, [], () => null), get('a')]), false);
    });

    it('two lanes whose batches deadlock both answer: the loser runs again as one transaction', async () => {
      const other = await secondLane();
      try {
        await batch(set('dl:1', 'a'), set('dl:2', 'b'));
        const lock = (k: string) => sql(`SELECT 1 FROM kv WHERE key = '${k}' FOR UPDATE`);
        // a barrier, not a nap: each batch waits (≤ 10 s) until both hold their first lock; with a
        // 0.2 s nap one batch could finish before the other began at load average 15-20 (no
        // deadlock). Arrivals are counted in a sequence (not rolled back), so the loser's re-run
        // passes at once.
        await batch(...barrier('dl'));
        const nap = () => sql('SELECT dl_barrier()');
        const mine = [lock('dl:1'), nap(), lock('dl:2')];
        const theirs = [lock('dl:2'), nap(), lock('dl:1')];
        const before = lane.snapshot().txRetries + other.snapshot().txRetries;
        const txBefore = lane.snapshot().txBatches + other.snapshot().txBatches;
        for (const op of mine) lane.submit(op);
        for (const op of theirs) other.submit(op);
        assert.deepEqual(await Promise.all([...mine, ...theirs]), [1, 1, 1, 1, 1, 1]);
        // Usually one victim; under load both backends' deadlock checks can fire before either
        // aborted (a 1230/1231 run at load ~15 saw 2), and both re-runs can meet again: ≥ 1.
        const retries = lane.snapshot().txRetries + other.snapshot().txRetries - before;
        assert.ok(retries >= 1, `retries ${retries}`);
        // every re-run was the whole batch as one transaction, never split into runs
        assert.equal(lane.snapshot().txBatches + other.snapshot().txBatches - txBefore, 2 + retries);
      } finally {
        await other.close();
      }
    });

    /**
     * The other lane as the side that wins a deadlock: <name>_lock_pair(a, b) (for this lane) locks
     * a, waits at the barrier, then locks b; the ops returned (for `other`) lock <name>:2, wait at
     * the barrier, then lock <name>:1, in a session that looks for deadlocks only after 10 s, so
     * Postgres (deadlock_timeout 50 ms in the embedded server) picks this lane's statement.
     */
    async function victimOf(other: Lane, name: string): Promise<Op[]> {
      await batch(...barrier(name), sql(`CREATE OR REPLACE FUNCTION ${name}_lock_pair(a text, b text) RETURNS int LANGUAGE plpgsql AS $f$
        BEGIN
          PERFORM 1 FROM kv WHERE key = convert_to(a, 'UTF8') FOR UPDATE;
          PERFORM ${name}_barrier();
          PERFORM 1 FROM kv WHERE key = convert_to(b, 'UTF8') FOR UPDATE;
          RETURN 1;
        END $f$`));
      const slow = sql("SET deadlock_timeout = '10s'");
      other.submit(slow);
      await slow;
      const lock = (k: string) => sql(`SELECT 1 FROM kv WHERE key = '${k}' FOR UPDATE`);
      return [lock(`${name}:2`), sql(`SELECT ${name}_barrier()`), lock(`${name}:1`)];
    }

    it('a batch split after an error goes out run by run: a deadlock victim that is not its last run is sent again', async () => {
      // the batch's transaction fails on 1/0 (nothing answered), then its runs go out one at a
      // time; the second locks ds:1 then ds:2 while another lane's transaction locks them in the
      // other order and looks for deadlocks only after 10 s, so the run is the victim. Split
      // pipelined, that run was not the batch's last and its client got "ERR … 40P01".
      const other = await secondLane();
      try {
        await batch(set('ds:1', 'a'), set('ds:2', 'b'), set('ds:a', 'v'));
        const theirs = await victimOf(other, 'ds');
        const mine = [sql('SELECT 1/0'), sql(`SELECT ds_lock_pair('ds:1', 'ds:2')`), get('ds:a')];
        const before = lane.snapshot();
        for (const op of mine) lane.submit(op);
        for (const op of theirs) other.submit(op);
        const replies = await Promise.all([...mine, ...theirs]);
        assert.match((replies[0] as RespError).text, /^ERR PostgreSQL error 22012/);
        assert.deepEqual([replies[1], str(replies[2]), ...replies.slice(3)], [1, 'v', 1, 1, 1]);
        const after = lane.snapshot();
        assert.equal(after.txRetries - before.txRetries, 1, 'the division by zero split the batch once');
        assert.ok(after.conflictResends - before.conflictResends >= 1, 'the middle run was the victim, sent again');
      } finally {
        await other.close();
      }
    });

    it('a lone statement chosen as a deadlock victim is sent again: its client sees no error', async () => {
      // the other side is a batch transaction that locks two rows in the opposite order and looks
      // for deadlocks only after 10 s, so Postgres (deadlock_timeout 50 ms in the embedded server)
      // aborts the lone statement, which used to reach its client as "ERR PostgreSQL error 40P01"
      const other = await secondLane();
      try {
        await batch(set('dv:1', 'a'), set('dv:2', 'b'));
        const theirs = await victimOf(other, 'dv');
        const mine = sql(`SELECT dv_lock_pair('dv:1', 'dv:2')`);
        const before = { resends: lane.snapshot().conflictResends, retries: other.snapshot().txRetries };
        lane.submit(mine);
        for (const op of theirs) other.submit(op);
        assert.deepEqual(await Promise.all([mine, ...theirs]), [1, 1, 1, 1]);
        // once, or again if the re-sent statement won the first row back and deadlocked a second time
        assert.ok(lane.snapshot().conflictResends - before.resends >= 1, 'the lone statement was the victim, sent again');
        assert.equal(other.snapshot().txRetries - before.retries, 0, 'the transaction was not the victim');
      } finally {
        await other.close();
      }
    });
  });
});
