/** MULTI / EXEC / DISCARD / WATCH against the real server, including two PostRESP processes. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient, encode } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';

let server: RunningServer;
let other: RunningServer;
const schema = uniqueSchema('tx');
before(async () => {
  server = await startServer(['--workers', '2'], { schema });
  other = await startServer(['--workers', '1'], { schema });
});
after(async () => { await Promise.all([server.stop(), other.stop()]); });

const connect = () => RawClient.connect(server.port);
const E = (error: string) => ({ error });

describe('MULTI/EXEC', () => {
  it('queues, then runs the block with runtime errors in their slots', async () => {
    const c = await connect();
    c.send(Buffer.concat([
      encode('DEL', 'a'), encode('MULTI'), encode('SET', 'a', 'x'), encode('INCR', 'a'), encode('GET', 'a'), encode('EXEC'),
    ]));
    assert.deepEqual(await c.read(6), [
      0, 'OK', 'QUEUED', 'QUEUED', 'QUEUED', ['OK', E('ERR value is not an integer or out of range'), 'x'],
    ]);
    c.close();
  });

  it('aborts with EXECABORT after a queueing error, like Redis', async () => {
    const c = await connect();
    c.send(Buffer.concat([
      encode('MULTI'), encode('SET', 'b', '1'), encode('NOSUCH'), encode('SET', 'b'), encode('EXEC'), encode('GET', 'b'),
    ]));
    assert.deepEqual(await c.read(6), [
      'OK', 'QUEUED', E("ERR unknown command 'NOSUCH', with args beginning with: "),
      E("ERR wrong number of arguments for 'set' command"),
      E('EXECABORT Transaction discarded because of previous errors.'), null,
    ]);
    c.close();
  });

  it('answers control errors with Redis texts', async () => {
    const c = await connect();
    assert.deepEqual(await c.call('EXEC'), E('ERR EXEC without MULTI'));
    assert.deepEqual(await c.call('DISCARD'), E('ERR DISCARD without MULTI'));
    assert.equal(await c.call('MULTI'), 'OK');
    assert.deepEqual(await c.call('MULTI'), E('ERR MULTI calls can not be nested'));
    assert.deepEqual(await c.call('WATCH', 'x'), E('ERR WATCH inside MULTI is not allowed'));
    assert.equal(await c.call('PING'), 'QUEUED');
    assert.deepEqual(await c.call('EXEC'), ['PONG']);
    assert.equal(await c.call('MULTI'), 'OK');
    assert.equal(await c.call('SET', 'd', '1'), 'QUEUED');
    assert.equal(await c.call('DISCARD'), 'OK');
    assert.equal(await c.call('GET', 'd'), null);
    assert.equal(await c.call('MULTI'), 'OK');
    assert.deepEqual(await c.call('EXEC'), []);
    c.close();
  });

  it('never reorders a transaction against the same client\'s pipelined commands', async () => {
    const c = await connect();
    c.send(Buffer.concat([
      encode('SET', 'k', '1'), encode('MULTI'), encode('INCR', 'k'), encode('INCR', 'k'), encode('EXEC'),
      encode('INCR', 'k'), encode('GET', 'k'),
    ]));
    assert.deepEqual(await c.read(7), ['OK', 'OK', 'QUEUED', 'QUEUED', [2, 3], 4, '4']);
    c.close();
  });
});

describe('WATCH', () => {
  it('fails EXEC with a null array when another client changed the key', async () => {
    const a = await connect();
    const b = await connect();
    await a.call('SET', 'w', '1');
    assert.equal(await a.call('WATCH', 'w'), 'OK');
    assert.equal(await b.call('SET', 'w', '2'), 'OK');
    await a.call('MULTI');
    await a.call('SET', 'w', 'mine');
    assert.equal(await a.call('EXEC'), null);
    assert.ok(a.raw.includes(Buffer.from('*-1\r\n')));
    assert.equal(await a.call('GET', 'w'), '2');
    a.close();
    b.close();
  });

  it('lets EXEC run when nothing changed, and UNWATCH forgets', async () => {
    const a = await connect();
    const b = await connect();
    await a.call('SET', 'u', '1');
    await a.call('WATCH', 'u', 'never-there');
    await a.call('MULTI');
    await a.call('INCR', 'u');
    assert.deepEqual(await a.call('EXEC'), [2]);
    await a.call('WATCH', 'u');
    await b.call('SET', 'u', '9');
    assert.equal(await a.call('UNWATCH'), 'OK');
    await a.call('MULTI');
    await a.call('INCR', 'u');
    assert.deepEqual(await a.call('EXEC'), [10]);
    a.close();
    b.close();
  });

  it('notices a key deleted and created again, and a watched key that expired', async () => {
    const a = await connect();
    const b = await connect();
    await a.call('SET', 'r', 'v');
    await a.call('WATCH', 'r');
    await b.call('DEL', 'r');
    await b.call('SET', 'r', 'v');
    await a.call('MULTI');
    await a.call('GET', 'r');
    assert.equal(await a.call('EXEC'), null);
    await a.call('SET', 'e', 'v', 'PX', '100');
    await a.call('WATCH', 'e');
    await new Promise((r) => setTimeout(r, 200));
    await a.call('MULTI');
    await a.call('SET', 'e', 'new');
    assert.equal(await a.call('EXEC'), null);
    a.close();
    b.close();
  });

  it('sees writes from another PostRESP process on the same database', async () => {
    const a = await connect();
    const b = await RawClient.connect(other.port);
    await a.call('SET', 'x', '1');
    await a.call('WATCH', 'x');
    assert.equal(await b.call('SET', 'x', 'other'), 'OK');
    await a.call('MULTI');
    await a.call('SET', 'x', 'mine');
    assert.equal(await a.call('EXEC'), null);
    assert.equal(await a.call('GET', 'x'), 'other');
    a.close();
    b.close();
  });

  it('applies a WATCH pipelined in one write with the MULTI … EXEC behind it', async () => {
    const a = await connect();
    await a.call('DEL', 'p');
    a.send(Buffer.concat([encode('WATCH', 'p'), encode('SET', 'p', '1'), encode('MULTI'), encode('PING'), encode('EXEC')]));
    assert.deepEqual(await a.read(5), ['OK', 'OK', 'OK', 'QUEUED', null]);
    a.send(Buffer.concat([encode('WATCH', 'p', 'q'), encode('UNWATCH'), encode('DEL', 'q'), encode('MULTI'), encode('PING'), encode('EXEC')]));
    assert.deepEqual(await a.read(6), ['OK', 'OK', 0, 'OK', 'QUEUED', ['PONG']]);
    a.close();
  });

  it('fails EXEC when another process is creating the watched key while EXEC checks', async () => {
    // b's transaction creates x, then waits on a row lock the test holds (gate), so its creation
    // is in flight, uncommitted, when a's EXEC checks x; it commits only after a's EXEC waits.
    const a = await connect();
    const b = await RawClient.connect(other.port);
    await a.call('DEL', 'x2');
    await a.call('SET', 'gate', '0');
    await withPg(async (pg) => {
      await pg.query('BEGIN');
      await pg.query(`SELECT 1 FROM "${schema}".kv WHERE db = 0 AND key = 'gate'::bytea FOR UPDATE`);
      const [{ pid: gatePid }] = (await pg.query('SELECT pg_backend_pid() AS pid')).rows as { pid: number }[];
      const blockedBy = async (pid: number): Promise<number> => {
        for (let tries = 0; tries < 500; tries++) {
          const r = await pg.query('SELECT pid FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))', [pid]);
          if (r.rows.length > 0) return (r.rows[0] as { pid: number }).pid;
          await new Promise((res) => setTimeout(res, 20));
        }
        throw new Error(`no backend waits for ${pid}`);
      };
      assert.equal(await a.call('WATCH', 'x2'), 'OK');
      b.send(Buffer.concat([encode('MULTI'), encode('SET', 'x2', 'other'), encode('INCR', 'gate'), encode('EXEC')]));
      const creator = await blockedBy(gatePid);
      a.send(Buffer.concat([encode('MULTI'), encode('SET', 'x2', 'mine'), encode('EXEC')]));
      await blockedBy(creator);
      await pg.query('COMMIT');
    });
    assert.deepEqual(await b.read(4), ['OK', 'QUEUED', 'QUEUED', ['OK', 1]]);
    assert.deepEqual(await a.read(3), ['OK', 'QUEUED', null]);
    assert.equal(await a.call('GET', 'x2'), 'other');
    a.close();
    b.close();
  });

  it('leaves no watch mark behind once every watcher is done', async () => {
    const a = await connect();
    const b = await RawClient.connect(other.port);
    const c = await connect();
    await a.call('WATCH', 'm1', 'm2');
    await b.call('WATCH', 'm2', 'm3');
    await c.call('WATCH', 'm3');
    c.send(Buffer.concat([encode('WATCH', 'm4'), encode('UNWATCH'), encode('WATCH', 'm5'), encode('MULTI'), encode('EXEC')]));
    assert.deepEqual(await c.read(5), ['OK', 'OK', 'OK', 'OK', []]);
    await a.call('MULTI');
    await a.call('PING');
    await a.call('EXEC');
    await b.call('UNWATCH');
    c.close();
    const marks = () => withPg(async (pg) => Number((await pg.query(
      `SELECT count(*) AS n FROM "${schema}".kv WHERE type = -1`)).rows[0].n));
    // released after each EXEC/UNWATCH/disconnect, without a reply to wait for: poll
    for (let tries = 0; tries < 500 && await marks() > 0; tries++) await new Promise((res) => setTimeout(res, 20));
    assert.equal(await marks(), 0);
    a.close();
    b.close();
  });

  it("makes optimistic increments from two processes exact", async () => {
    const clients = [await connect(), await connect(), await RawClient.connect(other.port)];
    await clients[0].call('SET', 'counter', '0');
    const perClient = 15;
    await Promise.all(clients.map(async (c) => {
      for (let done = 0; done < perClient;) {
        await c.call('WATCH', 'counter');
        const v = Number(await c.call('GET', 'counter'));
        await c.call('MULTI');
        await c.call('SET', 'counter', String(v + 1));
        const r = await c.call('EXEC');
        assert.ok(r === null || Array.isArray(r), `EXEC answers an array or nil, not ${JSON.stringify(r)}`);
        if (r !== null) done++;
      }
    }));
    assert.equal(await clients[0].call('GET', 'counter'), String(perClient * clients.length));
    for (const c of clients) c.close();
  });
});
