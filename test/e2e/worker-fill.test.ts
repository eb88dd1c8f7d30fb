/**
 * --worker-fill (core/primary/pool.ts pick): new connections go to the first worker until it has
 * that many, then to the worker with the fewest; 0 deals every connection to the fewest.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';
import { freePort } from '../differential/oracle';
import { laneOps } from './lane-metrics';

let server: RunningServer;
let http: number;
const schema = uniqueSchema('worker_fill');
const open: RawClient[] = [];

before(async () => {
  http = await freePort();
  server = await startServer(['--workers', '2', '--worker-fill', '3', '--http-port', String(http)], { schema });
});
after(async () => {
  for (const c of open) c.close();
  await server.stop();
  await withPg((c) => c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
});


let probes = 0;

/** which worker serves a new client: its GET of a key never read before (no cache entry) runs on that worker's lane */
async function connectAndLocate(): Promise<number> {
  const c = await RawClient.connect(server.port);
  open.push(c);
  const before = await laneOps(http);
  assert.equal(await c.call('GET', `worker-fill:${probes++}`), null);
  const now = await laneOps(http);
  assert.equal(now[0] - before[0] + now[1] - before[1], 1);
  return now[1] > before[1] ? 1 : 0;
}

describe('--worker-fill', () => {
  it('fills worker 0 up to 3 connections, then deals to the worker with the fewest', async () => {
    const placed: number[] = [];
    for (let i = 0; i < 5; i++) placed.push(await connectAndLocate());
    // 3 on worker 0, then worker 1 has the fewest (0, then 1 against 3)
    assert.deepEqual(placed, [0, 0, 0, 1, 1]);
  });

  it('CONFIG SET worker-fill 0 deals every new connection to the fewest; a higher fill goes back to worker 0', async () => {
    const admin = open[0];
    assert.equal(await admin.call('CONFIG', 'SET', 'worker-fill', '0'), 'OK');
    // 3 on worker 0, 2 on worker 1: the fewest is worker 1, then they are even (worker 0 first)
    assert.deepEqual([await connectAndLocate(), await connectAndLocate()], [1, 0]);
    assert.equal(await admin.call('CONFIG', 'SET', 'worker-fill', '10'), 'OK');
    assert.deepEqual([await connectAndLocate(), await connectAndLocate()], [0, 0]);
  });
});
