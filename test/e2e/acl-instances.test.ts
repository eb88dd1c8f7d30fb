/**
 * End to end: ACL users shared by two PostRESP processes on one schema (schema v10, the bus's U
 * notification): a user made on one logs in on the other; a rule changed on one holds for the
 * other's connected clients; DELUSER and ACL LOAD on one close the users' connections on both;
 * an instance started with --aclfile makes the file's users everyone's; after its bus connection
 * is killed an instance reads the users again. Another instance's change arrives through a
 * notification shortly after the reply, so the other side polls for it (up to 10 s).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RawClient, type Value } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';

const schema = uniqueSchema('acl_two');
const dir = mkdtempSync(path.join(tmpdir(), 'postresp-acl2-'));
const aclfile = path.join(dir, 'b.acl');
writeFileSync(aclfile, 'user default on nopass ~* &* +@all\nuser filed on nopass ~f* +get\n');
let a: RunningServer;
let b: RunningServer;
before(async () => {
  a = await startServer(['--workers', '2', '--storage-mode', 'unlogged'], { schema });
  b = await startServer(['--workers', '1', '--storage-mode', 'unlogged', '--aclfile', aclfile], { schema });
});
after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
});

/** f's value once it satisfies ok (another instance's change arrives shortly after the reply) */
async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await f();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function as(port: number, user: string, pass: string): Promise<RawClient> {
  const c = await RawClient.connect(port);
  assert.equal(await c.call('AUTH', user, pass), 'OK');
  return c;
}

const same = (x: Value) => (y: Value) => JSON.stringify(x) === JSON.stringify(y);

describe('ACL users shared by two instances', () => {
  it('the instance started with --aclfile made its users everyone\'s', async () => {
    const ca = await RawClient.connect(a.port);
    const cb = await RawClient.connect(b.port);
    assert.deepEqual(await until(() => ca.call('ACL', 'USERS'), same(['default', 'filed'])), ['default', 'filed']);
    assert.deepEqual(await ca.call('ACL', 'LIST'), await cb.call('ACL', 'LIST'));
    ca.close();
    cb.close();
  });

  it('SETUSER on one: logs in and holds on the other; DELUSER on the other closes the user\'s clients on both', async () => {
    const ca = await RawClient.connect(a.port);
    const cb = await RawClient.connect(b.port);
    assert.equal(await ca.call('ACL', 'SETUSER', 'app', 'on', '>apw', '~app:*', '+@all'), 'OK');
    assert.equal(await until(() => cb.call('AUTH', 'app', 'apw'), (v) => v === 'OK'), 'OK');
    const onB = await Promise.all([as(b.port, 'app', 'apw'), as(b.port, 'app', 'apw')]);
    const onA = await Promise.all([as(a.port, 'app', 'apw'), as(a.port, 'app', 'apw')]);
    assert.equal(await onB[0].call('SET', 'app:1', 'v'), 'OK');
    assert.equal(await ca.call('ACL', 'SETUSER', 'app', '-set'), 'OK');
    const denied = { error: "NOPERM this user has no permissions to run the 'set' command" };
    for (const u of onB) assert.deepEqual(await until(() => u.call('SET', 'app:1', 'v'), same(denied)), denied);
    for (const u of onA) assert.deepEqual(await u.call('SET', 'app:1', 'v'), denied);
    assert.equal(await onB[1].call('GET', 'app:1'), 'v');
    assert.equal(await cb.call('ACL', 'DELUSER', 'app'), 1);
    await Promise.all([...onA, ...onB].map((u) => u.waitClosed()));
    // each worker of a applies it as its own message arrives: ca's may come after onA's
    assert.deepEqual(await until(() => ca.call('ACL', 'USERS'), same(['default', 'filed'])), ['default', 'filed']);
    for (const c of [ca, cb]) c.close();
  });

  it('ACL LOAD on one replaces the users of both, closing the replaced users\' clients', async () => {
    const ca = await RawClient.connect(a.port);
    const cb = await RawClient.connect(b.port);
    const filedA = await as(a.port, 'filed', 'x');
    writeFileSync(aclfile, 'user default on nopass ~* &* +@all\nuser filed on nopass ~f* +get\nuser extra on nopass +ping\n');
    assert.equal(await cb.call('ACL', 'LOAD'), 'OK');
    await filedA.waitClosed();
    assert.deepEqual(await until(() => ca.call('ACL', 'USERS'), same(['default', 'extra', 'filed'])), ['default', 'extra', 'filed']);
    // the same file loaded at another start would write nothing; SAVE on the other has no file
    assert.deepEqual(await ca.call('ACL', 'SAVE'), { error: 'ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.' });
    for (const c of [ca, cb]) c.close();
  });

  it('after its bus connection is killed, an instance reads the users again (changes made meanwhile included)', async () => {
    const ca = await RawClient.connect(a.port);
    const cb = await RawClient.connect(b.port);
    const info = (await ca.call('INFO', 'server')) as string;
    const runId = /run_id:([0-9a-f]+)/.exec(info)![1]!;
    const killed = await withPg(async (c) => (await c.query(
      `SELECT pg_terminate_backend(pid) AS ok FROM "${schema}".bus_instances WHERE instance = $1`, [runId.slice(0, 16)])).rows.length);
    assert.equal(killed, 1);
    assert.equal(await cb.call('ACL', 'SETUSER', 'late', 'on', 'nopass', '+ping'), 'OK');
    assert.equal(await cb.call('ACL', 'SETUSER', 'extra', '+echo'), 'OK');
    const listB = await cb.call('ACL', 'LIST');
    assert.deepEqual(await until(() => ca.call('ACL', 'LIST'), same(listB)), listB);
    // and a change made on the reconnected instance reaches the other one again
    assert.equal(await until(() => ca.call('ACL', 'SETUSER', 'again', 'on'), (v) => v === 'OK'), 'OK');
    const listA = await ca.call('ACL', 'LIST');
    assert.deepEqual(await until(() => cb.call('ACL', 'LIST'), same(listA)), listA);
    for (const c of [ca, cb]) c.close();
  });
});
