/**
 * Two statements a BullMQ job sends many times, checked for what they cost Postgres, not only for
 * their replies (docs/BENCHMARKS.md "Where a BullMQ job's Postgres CPU went"):
 *
 * - XREAD (QueueEvents, 1–3 a job): x_read's entries query, planned as the lanes plan it (a
 *   generic plan, enable_seqscan and enable_sort off: schema.ts startupOptions), reads the index
 *   from the id on. Joined with kv for the start id, it read every entry of the stream: 3,000 index
 *   tuples a call on a 3,000-entry stream where 2 are new.
 * - A script call's first statement (sql.ts `begin`, one SQL statement): KEYS given unsorted, twice
 *   and absent are each locked once, the absent ones get placeholders that go before COMMIT, an
 *   EVALSHA of a flushed script answers NOSCRIPT and locks nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { scriptIdleInTransaction, withPg } from '../support/pg';
import { RawClient, encode } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { kWatchMark } from '../../core/engine/commands/kv-row';

let server: RunningServer;
const schema = uniqueSchema('stmtcost');

before(async () => { server = await startServer(['--workers', '1', '--storage-mode', 'unlogged'], { schema }); });
after(async () => {
  await server.stop();
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
});

describe('XREAD on a long stream', () => {
  it('reads the index from the id on, with the lanes\' generic plan', async () => {
    const c = await RawClient.connect(server.port);
    const n = 3000;
    c.send(Buffer.concat(Array.from({ length: n }, (_, i) => encode('XADD', 'ev', '*', 'event', 'completed', 'jobId', String(i)))));
    await c.read(n, 60_000);
    const tail = await c.call('XREVRANGE', 'ev', '+', '-', 'COUNT', '3') as [string, string[]][];
    const from = tail[2][0];
    // the reply: the two entries after `from`
    const read = await c.call('XREAD', 'STREAMS', 'ev', from) as [string, [string, string[]][]][];
    assert.deepEqual(read[0][1].map((e) => e[0]), [tail[1][0], tail[0][0]]);
    c.socket.destroy();
    const [ms, seq] = await withPg(async (pg) => {
      const r = await pg.query(`SELECT e.ms::text AS m, e.seq::text AS s FROM "${schema}".stream_entries e ORDER BY e.ms DESC, e.seq DESC OFFSET 2 LIMIT 1`);
      return [r.rows[0].m as string, r.rows[0].s as string];
    });
    const tuples = await withPg(async (pg) => {
      await pg.query(`SET search_path = "${schema}"`);
      await pg.query('SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off; SET enable_sort = off');
      await pg.query('BEGIN');
      for (let i = 0; i < 5; i++) {
        const r = await pg.query(`SELECT count(*)::int AS n FROM x_read(0::int2, ARRAY['ev'::bytea], ARRAY[$1::int8], ARRAY[$2::int8], NULL, 0)`, [ms, seq]);
        assert.equal(r.rows[0].n, 2);
        // '$': nothing after the last entry
        const last = await pg.query(`SELECT count(*)::int AS n FROM x_read(0::int2, ARRAY['ev'::bytea], NULL, NULL, NULL, 0)`);
        assert.equal(last.rows[0].n, 0);
      }
      const r = await pg.query(`SELECT pg_stat_get_xact_tuples_returned('stream_entries_pkey'::regclass)::int AS n`);
      await pg.query('COMMIT');
      return r.rows[0].n as number;
    });
    // 10 calls: 2 entries (and the end of the key) each, not 3,000
    assert.ok(tuples <= 100, `index tuples read by 10 XREAD: ${tuples}`);
  });
});

describe('a script call\'s begin statement', () => {
  const placeholders = () => withPg(async (pg) => Number((await pg.query(
    `SELECT count(*) AS n FROM "${schema}".kv WHERE type = ${kWatchMark} AND card = 0`)).rows[0].n));

  it('locks KEYS given unsorted and twice, and drops the placeholders of absent ones', async () => {
    const c = await RawClient.connect(server.port);
    assert.equal(await c.call('SET', 'b', '1'), 'OK');
    const body = "return {redis.call('exists', KEYS[1]), redis.call('exists', KEYS[2]), redis.call('exists', KEYS[3]), redis.call('exists', KEYS[4])}";
    assert.deepEqual(await c.call('EVAL', body, '4', 'z', 'b', 'a', 'b'), [0, 1, 0, 1]);
    assert.equal(await placeholders(), 0);
    // a write to an absent declared key commits; the other absent one leaves nothing
    assert.equal(await c.call('EVAL', "redis.call('set', KEYS[2], 'x'); return redis.call('get', KEYS[3])", '3', 'q', 'p', 'b'), '1');
    assert.equal(await c.call('GET', 'p'), 'x');
    assert.equal(await c.call('EXISTS', 'q'), 0);
    assert.equal(await placeholders(), 0);
    c.socket.destroy();
  });

  it('makes a creator of an absent declared key wait for the call\'s commit', async () => {
    const a = await RawClient.connect(server.port);
    const b = await RawClient.connect(server.port);
    // the call holds the placeholder of `fresh` ~300 ms (busy Lua between two redis.call)
    a.send(encode('EVAL', "redis.call('exists', KEYS[1]); local t = redis.call('time'); local e = t[1] * 1000000 + t[2] + 300000; "
      + "while true do t = redis.call('time'); if t[1] * 1000000 + t[2] > e then break end end; "
      + "return redis.call('set', KEYS[2], 'script')", '2', 'other', 'fresh'));
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    b.send(encode('SET', 'fresh', 'client', 'NX'));
    const [nx] = await b.read(1);
    const [ev] = await a.read(1);
    assert.equal(ev, 'OK');
    // the client's SET NX waited for the script's commit, so it found the key there
    assert.equal(nx, null, `SET NX after ${Date.now() - t0} ms`);
    assert.equal(await b.call('GET', 'fresh'), 'script');
    a.socket.destroy();
    b.socket.destroy();
  });

  it('of a call without KEYS holds no lock on kv: FLUSHALL does not wait for it', async () => {
    const a = await RawClient.connect(server.port);
    const b = await RawClient.connect(server.port);
    // a keyless call busy in Lua for 1.5 s inside its transaction (as a runaway one would be
    // until killed); the first version of the one-statement begin named kv (an INSERT of no
    // rows) and so held a lock on it until COMMIT, which FLUSHALL's TRUNCATE waited for. Checked
    // in pg_locks, not by which reply comes first: in a loaded full run an ANALYZE of kv can
    // delay the TRUNCATE past the call's end whatever the call holds.
    a.send(encode('EVAL', "local t = redis.call('time'); local e = t[1] * 1000000 + t[2] + 1500000; "
      + "while true do t = redis.call('time'); if t[1] * 1000000 + t[2] > e then break end end; return 'done'", '0'));
    await scriptIdleInTransaction(schema);
    const held = await withPg(async (pg) => (await pg.query(`SELECT count(*)::int AS n FROM pg_locks l
      JOIN pg_stat_activity s ON s.pid = l.pid
      WHERE s.application_name = 'postresp-script' AND l.relation = '"${schema}".kv'::regclass`)).rows[0].n as number);
    assert.equal(held, 0, 'locks on kv held by the running keyless call');
    assert.equal(await b.call('FLUSHALL'), 'OK');
    const [ev] = await a.read(1);
    assert.equal(ev, 'done');
    a.socket.destroy();
    b.socket.destroy();
  });

  it('answers NOSCRIPT for a flushed script and locks nothing', async () => {
    const c = await RawClient.connect(server.port);
    const sha = await c.call('SCRIPT', 'LOAD', "return redis.call('exists', KEYS[1])") as string;
    assert.equal(await c.call('EVALSHA', sha, '2', 'nope1', 'nope2'), 0);
    await withPg(async (pg) => void (await pg.query(`DELETE FROM "${schema}".scripts`)));
    const r = await c.call('EVALSHA', sha, '2', 'nope1', 'nope2') as { error: string };
    assert.match(r.error, /^NOSCRIPT/);
    assert.equal(await placeholders(), 0);
    c.socket.destroy();
  });
});
