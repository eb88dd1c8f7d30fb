/**
 * Pipelined batches on a lane (lane.ts, --batch-pipeline-min) against the real Postgres: a batch
 * is held in Postgres on a row lock taken from another session, so the test decides which
 * batches are in flight together, and reads from the lane's statement count that the next one
 * went out before the first one answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { BatchOp, ReadOp, type Op } from '../../core/engine/ops';
import { RespError, type Reply } from '../../core/engine/reply';
import { countReply } from '../../core/engine/commands/exec';
import { getReply } from '../../core/engine/commands/string/get';
import { kPushBatch } from '../../core/engine/commands/list/push-batch';
import { installFunctions } from '../../core/engine/commands/install-functions';
import { connectClient } from '../../core/primary/postgres/connect';
import { migrate } from '../../core/primary/postgres/migrations';
import { startupOptions } from '../../core/primary/postgres/schema';
import { freshSchema, testPgUrl } from '../../test/support/pg';
import { Lane } from './lane';

const b = (s: string) => Buffer.from(s);
const push = (k: string, e: string) => new BatchOp(kPushBatch, { db: 0, key: b(k), elements: [b(e)], left: false, onlyExisting: false }, countReply);
/** n RPUSHes of key, elements `${tag}0` … */
const pushes = (k: string, tag: string, n: number) => Array.from({ length: n }, (_, i) => push(k, `${tag}${i}`));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('pipelined lane batches', () => {
  let lane: Lane;
  let schema = '';
  let drop: () => Promise<void>;
  let admin: pg.Client;

  before(async () => {
    const fresh = await freshSchema('lane_pipe');
    schema = fresh.schema;
    drop = fresh.drop;
    await migrate(testPgUrl(), { schema, storageMode: 'unlogged', convertStorageMode: false });
    admin = await connectClient(testPgUrl());
    await installFunctions(admin, schema);
    lane = new Lane({
      url: testPgUrl(), startupOptions: startupOptions('unlogged', schema), log: () => undefined,
      maxCommands: () => 256, maxBytes: () => 4 << 20, batchTransaction: () => true, pipelineMin: () => 2,
    });
    await lane.start();
  });
  after(async () => {
    await lane?.close();
    await admin?.end();
    await drop?.();
  });

  const submit = (ops: Op[]) => { for (const op of ops) lane.submit(op); };
  const statements = () => lane.snapshot().statements;
  /** the key's elements in order, comma-separated ('' when it has none) */
  async function elements(key: string): Promise<string> {
    const r = await admin.query(`SELECT string_agg(convert_from(value, 'UTF8'), ',' ORDER BY pos) AS s FROM "${schema}".lists WHERE key = $1`, [b(key)]);
    return r.rows[0].s ?? '';
  }
  /** a session holding the kv rows of keys (FOR UPDATE) until release() */
  async function lock(...keys: string[]): Promise<{ pid: number; release: () => Promise<void> }> {
    const c = await connectClient(testPgUrl());
    await c.query('BEGIN');
    const r = await c.query(`SELECT 1 FROM "${schema}".kv WHERE db = 0 AND key = ANY($1) FOR UPDATE`, [keys.map(b)]);
    assert.equal(r.rows.length, keys.length);
    const pid = (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p as number;
    return { pid, release: async () => { await c.query('ROLLBACK'); await c.end(); } };
  }
  /** the pid of the backend blocked by the locker's, once there is one (the lane's statement waits on its lock) */
  async function blockedBy(lockerPid: number): Promise<number> {
    for (let i = 0; i < 500; i++) {
      const r = await admin.query('SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [lockerPid]);
      if (r.rows.length > 0) return r.rows[0].pid as number;
      await sleep(10);
    }
    throw new Error('the lane never waited on the lock');
  }
  /** waits until the lane has sent `n` more statements than `from` (or fails after 5 s) */
  async function sent(from: number, n: number): Promise<void> {
    for (let i = 0; i < 500 && statements() - from < n; i++) await sleep(10);
    assert.equal(statements() - from, n);
  }
  const isError = (r: Reply, code: RegExp) => r instanceof RespError && code.test(r.text);

  it('the next batch goes out behind a one-run batch in flight; replies and effects keep their order; a failed batch fails only its own ops', async () => {
    submit([push('pa', 'x'), push('pb', 'x'), push('pc', 'x')]);
    await sleep(50);
    const held = await lock('pa', 'pb');
    try {
      const s0 = statements();
      const first = pushes('pa', 'a', 3);
      submit(first);
      const backend = await blockedBy(held.pid);
      const second = pushes('pb', 'b', 3);
      submit(second);
      // the second batch went out while the first waits on its lock: two statements sent, none answered
      await sent(s0, 2);
      const third = pushes('pc', 'c', 3);
      submit(third);
      await sleep(30);
      assert.equal(statements() - s0, 2, 'two batches in flight at most');
      // the first batch's statement fails (57014): only its ops answer the error
      await admin.query('SELECT pg_cancel_backend($1)', [backend]);
      const r1 = await Promise.all(first);
      assert.ok(r1.every((r) => isError(r, /57014/)), JSON.stringify(r1));
      // the second now waits on pb's lock, and the third went out behind it
      await sent(s0, 3);
      await held.release();
      assert.deepEqual(await Promise.all(second), [2, 3, 4]);
      assert.deepEqual(await Promise.all(third), [2, 3, 4]);
    } finally {
      await held.release().catch(() => undefined);
    }
    assert.equal(await elements('pa'), 'x');
    assert.equal(await elements('pb'), 'x,b0,b1,b2');
    assert.equal(await elements('pc'), 'x,c0,c1,c2');
  });

  it('a dropped connection with two batches in flight: the acknowledged batch stays, the others fail, nothing twice', async () => {
    submit([push('da', 'x'), push('db', 'x')]);
    await sleep(50);
    const heldA = await lock('da');
    const heldB = await lock('db');
    try {
      const s0 = statements();
      const first = pushes('da', 'a', 3);
      submit(first);
      await blockedBy(heldA.pid);
      const second = pushes('db', 'b', 3);
      submit(second);
      await sent(s0, 2);
      // the first commits and is acknowledged while the second still waits on db's lock
      await heldA.release();
      assert.deepEqual(await Promise.all(first), [2, 3, 4]);
      const backend = await blockedBy(heldB.pid);
      const third = pushes('dc', 'c', 3);
      submit(third);
      await sent(s0, 3);
      await admin.query('SELECT pg_terminate_backend($1)', [backend]);
      const lost = await Promise.all([...second, ...third]);
      assert.ok(lost.every((r) => r instanceof RespError), JSON.stringify(lost));
    } finally {
      await heldA.release().catch(() => undefined);
      await heldB.release().catch(() => undefined);
    }
    // the lane reconnects; what was acknowledged is there once, what failed is not there at all
    for (let i = 0; ; i++) {
      const get = new ReadOp(0, b('none'), null, getReply);
      lane.submit(get);
      if (await get === null) break;
      assert.ok(i < 200, 'the lane reconnects');
      await sleep(25);
    }
    assert.equal(await elements('da'), 'x,a0,a1,a2');
    assert.equal(await elements('db'), 'x');
    assert.equal(await elements('dc'), '');
    const again = pushes('db', 'n', 2);
    submit(again);
    assert.deepEqual(await Promise.all(again), [2, 3]);
  });
});
