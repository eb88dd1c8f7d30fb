/**
 * --shared-lanes: worker 1's plain SETs run in worker 0's lane batches (workers/storage/lane-feeder*.ts).
 * Clients are dealt to the worker with the fewest, so connecting one at a time alternates 0, 1, 0, 1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient, encode, type Value } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';
import { freePort } from '../differential/oracle';
import { laneOps } from './lane-metrics';

let server: RunningServer;
let http: number;
const schema = uniqueSchema('shared_lanes');

before(async () => {
  http = await freePort();
  server = await startServer(['--workers', '2', '--shared-lanes', 'yes', '--http-port', String(http), '--enable-debug-command', 'yes'], { schema });
});
after(async () => {
  await server.stop();
  await withPg((c) => c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
});

/** n clients, connected one at a time: client i is on worker i % 2 */
async function clients(n: number): Promise<RawClient[]> {
  const out: RawClient[] = [];
  for (let i = 0; i < n; i++) {
    const c = await RawClient.connect(server.port);
    assert.equal(await c.call('PING'), 'PONG');
    out.push(c);
  }
  return out;
}


let probes = 0;

/** which worker serves c: its GET runs on that worker's own lane (a key never read before: the read cache, on by default, has no entry for it) */
async function workerOf(c: RawClient): Promise<number> {
  const before = await laneOps(http);
  await c.call('GET', `which-worker:${probes++}`);
  const now = await laneOps(http);
  return now[1] > before[1] ? 1 : 0;
}

/** a client on worker 0 and one on worker 1 */
async function pair(): Promise<[RawClient, RawClient]> {
  const on: (RawClient | undefined)[] = [undefined, undefined];
  // a replacement worker takes clients once it is ready: until then all go to the other
  for (let i = 0; i < 100 && (on[0] === undefined || on[1] === undefined); i++) {
    const [c] = await clients(1);
    const w = await workerOf(c);
    if (on[w] === undefined) on[w] = c;
    else {
      c.close();
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  assert.ok(on[0] && on[1], 'no client landed on one of the workers');
  return [on[0], on[1]];
}

async function waitFor(what: () => Promise<boolean>, label: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await what()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(label);
}

describe('--shared-lanes', () => {
  it("worker 1's SETs run on worker 0's lane, and every client's replies come in its order", async () => {
    const cs = await clients(6);
    const before = await laneOps(http);
    // SETs only, one at a time (worker 0's batches stay under kForwardBelow): every one of
    // worker 1's goes through the ring
    await Promise.all(cs.map(async (c, i) => {
      for (let j = 0; j < 50; j++) assert.equal(await c.call('SET', `sl:${i}:${j % 7}`, `v${j}`), 'OK');
    }));
    const mid = await laneOps(http);
    assert.equal(mid[1] - before[1], 0, 'no SET ran on worker 1\'s own lane');
    assert.equal(mid[0] - before[0], 300, 'all 300 ran on worker 0\'s');
    // mixed pipelines: a client's GET/INCR/APPEND after its SETs see them, in order
    await Promise.all(cs.map(async (c, i) => {
      const cmds: Buffer[] = [];
      const want: Value[] = [];
      let counter = 0;
      const text = new Map<string, string>();
      for (let j = 0; j < 60; j++) {
        const k = `mx:${i}:${j % 3}`;
        switch (j % 5) {
          case 0: cmds.push(encode('SET', k, `a${j}`)); want.push('OK'); text.set(k, `a${j}`); break;
          case 1: cmds.push(encode('APPEND', k, 'z')); text.set(k, (text.get(k) ?? '') + 'z'); want.push(text.get(k)!.length); break;
          case 2: cmds.push(encode('GET', k)); want.push(text.get(k) ?? null); break;
          case 3: cmds.push(encode('INCR', `mx:${i}:n`)); want.push(++counter); break;
          case 4: cmds.push(encode('SET', `mx:${i}:n`, String(counter * 10))); counter *= 10; want.push('OK'); break;
        }
      }
      c.send(Buffer.concat(cmds));
      assert.deepEqual(await c.read(want.length), want);
    }));
    for (const c of cs) c.close();
  });

  it('MULTI/EXEC, WATCH and EVAL behind forwarded SETs see them', async () => {
    const [a, b] = await pair();
    b.send(Buffer.concat([
      encode('SET', 'tx:a', '1'), encode('SET', 'tx:b', '2'),
      encode('MULTI'), encode('GET', 'tx:a'), encode('INCR', 'tx:b'), encode('EXEC'),
      encode('SET', 'tx:a', '5'),
      encode('EVAL', "return redis.call('GET', KEYS[1]) .. redis.call('GET', KEYS[2])", '2', 'tx:a', 'tx:b'),
      encode('WATCH', 'tx:a'), encode('SET', 'tx:c', 'x'),
    ]));
    assert.deepEqual(await b.read(10), ['OK', 'OK', 'OK', 'QUEUED', 'QUEUED', ['1', 3], 'OK', '53', 'OK', 'OK']);
    // another client's write to the watched key aborts the transaction
    assert.equal(await a.call('SET', 'tx:a', '6'), 'OK');
    b.send(Buffer.concat([encode('MULTI'), encode('SET', 'tx:a', '7'), encode('EXEC'), encode('GET', 'tx:a')]));
    assert.deepEqual(await b.read(4), ['OK', 'QUEUED', null, '6']);
    a.close();
    b.close();
  });

  it("a Postgres error of a forwarded SET reaches its client, and the next commands run", async () => {
    const [a, b] = await pair();
    await withPg((c) => c.query(`
      CREATE FUNCTION "${schema}".no_bad() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.key = 'bad'::bytea THEN RAISE EXCEPTION 'no bad keys here'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER no_bad BEFORE INSERT OR UPDATE ON "${schema}".kv FOR EACH ROW EXECUTE FUNCTION "${schema}".no_bad()`));
    try {
      const r = await b.call('SET', 'bad', 'x');
      assert.match((r as { error: string }).error, /^ERR PostgreSQL error P0001: .*no bad keys here/);
      b.send(Buffer.concat([encode('SET', 'good', 'y'), encode('GET', 'good'), encode('GET', 'bad')]));
      assert.deepEqual(await b.read(3), ['OK', 'y', null]);
      assert.equal(await a.call('SET', 'good:a', 'z'), 'OK');
    } finally {
      await withPg((c) => c.query(`DROP TRIGGER no_bad ON "${schema}".kv; DROP FUNCTION "${schema}".no_bad()`));
    }
    a.close();
    b.close();
  });

  it('either worker exiting while forwarded SETs are in a batch: no crash, every reply comes', async () => {
    // SETs of slow:* take 300 ms in Postgres: they are in worker 0's batch when a worker dies
    await withPg((c) => c.query(`
      CREATE FUNCTION "${schema}".slow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.key >= 'slow:'::bytea AND NEW.key < 'slow;'::bytea THEN PERFORM pg_sleep(0.3); END IF; RETURN NEW; END $$;
      CREATE TRIGGER slow BEFORE INSERT OR UPDATE ON "${schema}".kv FOR EACH ROW EXECUTE FUNCTION "${schema}".slow()`));
    const restarts = async (n: number) => {
      const [probe] = await clients(1);
      const ok = /worker_restarts:(\d+)/.exec(String(await probe.call('INFO', 'server')));
      probe.close();
      return ok !== null && Number(ok[1]) >= n;
    };
    try {
      // worker 1 dies: its forwarded SETs still commit in worker 0's batch, worker 0 keeps serving
      const [a, b] = await pair();
      const [extra, b2] = await pair();
      extra.close();
      const before = await laneOps(http);
      b.send(Buffer.concat([encode('SET', 'slow:1', 'x'), ...Array.from({ length: 20 }, (_, j) => encode('SET', `after:${j}`, 'y'))]));
      await new Promise((r) => setTimeout(r, 100));
      b2.send(encode('DEBUG', 'PANIC'));
      await b.waitClosed();
      assert.equal(await a.call('SET', 'a:1', 'still'), 'OK');
      await waitFor(() => restarts(1), 'worker 1 was not restarted');
      assert.equal(await a.call('GET', 'slow:1'), 'x');
      assert.ok((await laneOps(http))[0] - before[0] >= 21, "worker 1's SETs ran on worker 0's lane");
      // the replacement worker 1 forwards from where the ring stood
      const more = await clients(4);
      for (const c of more) assert.equal(await c.call('SET', 'n:1', 'v'), 'OK');
      for (const c of more) assert.equal(await c.call('GET', 'n:1'), 'v');
      for (const c of more) c.close();
      a.close();

      // worker 0 (the owner) dies with worker 1's SET in its batch: that client gets an answer
      const [a2, c1] = await pair();
      c1.send(Buffer.concat([encode('SET', 'slow:2', 'x'), encode('SET', 'slow:3', 'y')]));
      await new Promise((r) => setTimeout(r, 100));
      a2.send(encode('DEBUG', 'PANIC'));
      const replies = await c1.read(2, 20000);
      for (const r of replies) assert.ok(r === 'OK' || /lane owner worker exited|PostgreSQL/.test((r as { error: string }).error), JSON.stringify(r));
      await waitFor(() => restarts(2), 'worker 0 was not restarted');
      assert.equal(await c1.call('SET', 'after:owner', 'z'), 'OK');
      assert.equal(await c1.call('GET', 'after:owner'), 'z');
      c1.close();
      assert.doesNotMatch(server.output(), /TypeError|RangeError/);
    } finally {
      await withPg((c) => c.query(`DROP TRIGGER slow ON "${schema}".kv; DROP FUNCTION "${schema}".slow()`));
    }
  });
});
