/**
 * Two PostRESP processes on one database and schema (the scale-out path): each sees the other's
 * writes at once, and conditional writes stay exact across them (the test run's shared Postgres).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient, encode, type Value } from '../e2e/resp-client';
import { startServer, uniqueSchema, type RunningServer } from '../e2e/start-server';
import { withPg } from '../support/pg';

const schema = uniqueSchema('shared');
let a: RunningServer;
let b: RunningServer;
let ca: RawClient;
let cb: RawClient;
before(async () => {
  a = await startServer(['--workers', '2'], { schema });
  b = await startServer(['--workers', '2'], { schema }); // after a: the schema exists, b only checks it
  ca = await RawClient.connect(a.port);
  cb = await RawClient.connect(b.port);
});
after(async () => {
  ca?.close();
  cb?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
});

describe('two PostRESP processes, one schema', () => {
  it('a write on one is read on the other immediately', async () => {
    for (let i = 0; i < 200; i++) {
      const [w, r] = i % 2 ? [ca, cb] : [cb, ca];
      assert.equal(await w.call('SET', `x${i}`, `v${i}`), 'OK');
      assert.equal(await r.call('GET', `x${i}`), `v${i}`, `GET x${i} right after SET x${i} on the other instance`);
    }
    assert.equal(await ca.call('DEL', 'x1', 'x2'), 2);
    assert.equal(await cb.call('EXISTS', 'x1', 'x2', 'x3'), 1);
    assert.equal(await cb.call('MSET', 'm1', 'a', 'm2', 'b'), 'OK');
    assert.deepEqual(await ca.call('MGET', 'm1', 'm2', 'x0'), ['a', 'b', 'v0']);
    assert.equal(await ca.call('SELECT', '3'), 'OK');
    assert.equal(await cb.call('SELECT', '3'), 'OK');
    assert.equal(await ca.call('SET', 'in3', 'three'), 'OK');
    assert.equal(await cb.call('GET', 'in3'), 'three');
    assert.equal(await cb.call('FLUSHDB'), 'OK');
    assert.equal(await ca.call('DBSIZE'), 0);
    assert.equal(await ca.call('SELECT', '0'), 'OK');
    assert.equal(await cb.call('SELECT', '0'), 'OK');
  });

  it('INCR from both sums exactly; SET NX from both succeeds once per key', async (t) => {
    const pipeline = async (c: RawClient, cmds: string[][]): Promise<Value[]> => {
      c.send(Buffer.concat(cmds.map((x) => encode(...x))));
      return c.read(cmds.length, 30000);
    };
    const incrs = Array.from({ length: 1000 }, (_, i) => ['INCRBY', `n${i % 4}`, '3']);
    await Promise.all([pipeline(ca, incrs), pipeline(cb, incrs)]);
    assert.deepEqual(await ca.call('MGET', 'n0', 'n1', 'n2', 'n3'), ['1500', '1500', '1500', '1500']);
    const nx = (who: string) => Array.from({ length: 300 }, (_, i) => ['SET', `nx${i}`, who, 'NX']);
    const [ra, rb] = await Promise.all([pipeline(ca, nx('a')), pipeline(cb, nx('b'))]);
    const winners = ra.map((r, i) => (r === 'OK' ? 'a' : '') + (rb[i] === 'OK' ? 'b' : ''));
    assert.ok(winners.every((w) => w === 'a' || w === 'b'), `SET NX winners per key: ${winners.join(',')}`);
    const values = await cb.call('MGET', ...Array.from({ length: 300 }, (_, i) => `nx${i}`));
    assert.deepEqual(values, winners);
    t.diagnostic(`SET NX races: a won ${winners.filter((w) => w === 'a').length}, b won ${winners.filter((w) => w === 'b').length}`);
  });
});
