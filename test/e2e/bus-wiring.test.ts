/**
 * The message bus as the server starts it (core/primary/main.ts): each PostRESP process registers
 * one bus connection per schema, sees the others', and unregisters when it stops
 * (core/bus/pg-link.test.ts tests the bus itself).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';

const schema = uniqueSchema('bus_wiring');
const servers: RunningServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
});

const live = () => withPg(async (c) => (await c.query(`SELECT i.instance FROM "${schema}".bus_instances i
  JOIN pg_stat_activity a ON a.pid = i.pid AND a.backend_start = i.backend_start AND a.application_name = 'postresp-bus'`)).rowCount);

describe('bus wiring', () => {
  it('two processes on one schema each hold one live bus connection; a stopped one is gone', async () => {
    servers.push(await startServer(['--workers', '2'], { schema }));
    servers.push(await startServer(['--workers', '2'], { schema }));
    assert.equal(await live(), 2);
    await servers.pop()!.stop();
    assert.equal(await live(), 1);
    assert.equal((await withPg((c) => c.query(`SELECT count(*)::int AS n FROM "${schema}".bus_instances`))).rows[0].n, 1);
  });
});
