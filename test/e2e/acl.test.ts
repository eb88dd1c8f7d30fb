/**
 * End to end: ACL users on a server with two workers (a SETUSER made through one worker holds on
 * the other at once), DELUSER closing the user's connections on every worker, --aclfile with ACL
 * SAVE and ACL LOAD, HELLO AUTH, SUBSCRIBE's channel check, redis.call as a restricted user, and
 * an ACL file's default user taking the place of --requirepass's.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Redis from 'ioredis';
import { startServer, type RunningServer } from './start-server';
import { RawClient } from './resp-client';

const dir = mkdtempSync(path.join(tmpdir(), 'postresp-acl-'));
const aclfile = path.join(dir, 'users.acl');
// the file's default user wins over --requirepass, as in Redis (the file is read after the options)
writeFileSync(aclfile, `user default on #${createHash('sha256').update('pw0').digest('hex')} ~* &* +@all\n` + 'user filed on #5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 ~f* +get\n');

describe('ACL users', () => {
  let s: RunningServer;
  before(async () => { s = await startServer(['--workers', '2', '--storage-mode', 'unlogged', '--aclfile', aclfile, '--requirepass', 'other']); });
  after(async () => { await s?.stop(); });

  const admin = async () => {
    const c = await RawClient.connect(s.port);
    assert.equal(await c.call('AUTH', 'pw0'), 'OK');
    return c;
  };

  it('users from --aclfile, its default user over --requirepass', async () => {
    const c = await admin();
    assert.deepEqual(await c.call('ACL', 'USERS'), ['default', 'filed']);
    const f = await RawClient.connect(s.port);
    assert.deepEqual(await f.call('GET', 'x'), { error: 'NOAUTH Authentication required.' });
    assert.equal(await f.call('AUTH', 'filed', 'password'), 'OK');
    assert.deepEqual(await f.call('GET', 'x'), { error: 'NOPERM this user has no permissions to access one of the keys used as arguments' });
    assert.equal(await f.call('GET', 'f1'), null);
    assert.deepEqual(await f.call('AUTH', 'filed', 'nope'), { error: 'WRONGPASS invalid username-password pair or user is disabled.' });
    assert.deepEqual(await f.call('ACL', 'WHOAMI'), { error: "NOPERM this user has no permissions to run the 'acl|whoami' command" });
    f.close();
    c.close();
  });

  it('a SETUSER on one connection holds at once for connections on every worker; DELUSER closes them all', async () => {
    const c = await admin();
    assert.equal(await c.call('ACL', 'SETUSER', 'app', 'on', '>apw', '~app:*', '+@all', '-@dangerous'), 'OK');
    const users = await Promise.all(Array.from({ length: 6 }, () => RawClient.connect(s.port)));
    for (const u of users) assert.equal(await u.call('AUTH', 'app', 'apw'), 'OK');
    const ids = new Set<unknown>();
    for (const u of users) ids.add(await u.call('CLIENT', 'ID'));
    assert.equal(ids.size, 6);
    const list = (await c.call('CLIENT', 'LIST')) as string;
    assert.equal(list.split('\n').filter((l) => l.includes(' user=app ')).length, 6);
    assert.equal(await c.call('ACL', 'SETUSER', 'app', '-set'), 'OK');
    for (const u of users) {
      assert.deepEqual(await u.call('SET', 'app:1', 'v'), { error: "NOPERM this user has no permissions to run the 'set' command" });
      assert.equal(await u.call('GET', 'app:1'), null);
    }
    assert.equal(await c.call('ACL', 'DELUSER', 'app', 'nosuch'), 1);
    await Promise.all(users.map((u) => u.waitClosed()));
    c.close();
  });

  it('EXEC checks queued commands again: one whose permission was taken away since MULTI is refused in its slot (Redis 7.0)', async () => {
    const c = await admin();
    assert.equal(await c.call('ACL', 'SETUSER', 'tx', 'on', 'nopass', '~*', '&*', '+@all'), 'OK');
    const u = await RawClient.connect(s.port);
    assert.equal(await u.call('AUTH', 'tx', 'x'), 'OK');
    assert.equal(await u.call('MULTI'), 'OK');
    for (const cmd of [['GET', 'k'], ['SET', 'k', 'v'], ['PUBLISH', 'ch', 'm'], ['SET', 'other', 'v']]) assert.equal(await u.call(...cmd), 'QUEUED');
    assert.equal(await c.call('ACL', 'LOG', 'RESET'), 'OK');
    assert.equal(await c.call('ACL', 'SETUSER', 'tx', '-get', 'resetkeys', '~k', 'resetchannels'), 'OK');
    const why = 'NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: ';
    assert.deepEqual(await u.call('EXEC'), [{ error: `${why}no permission to execute the command or subcommand` }, 'OK',
      { error: `${why}no permission to access one of the channels used as arguments` }, { error: `${why}no permission to touch the specified keys` }]);
    const log = (await c.call('ACL', 'LOG')) as unknown[][];
    assert.deepEqual(log.map((e) => [e[3], e[5], e[7]]), [['key', 'multi', 'other'], ['channel', 'multi', 'ch'], ['command', 'multi', 'get']]);
    u.close();
    c.close();
  });

  it("CLIENT KILL USER of a user nobody has: Redis's error, not 0", async () => {
    const c = await admin();
    assert.deepEqual(await c.call('CLIENT', 'KILL', 'USER', 'nosuch'), { error: "ERR No such user 'nosuch'" });
    assert.equal(await c.call('CLIENT', 'KILL', 'USER', 'filed', 'SKIPME', 'yes'), 0);
    c.close();
  });

  it('HELLO AUTH, SUBSCRIBE channels, redis.call as the user', async () => {
    const c = await admin();
    assert.equal(await c.call('ACL', 'SETUSER', 'sub', 'on', '>spw', '&news.*', '~k*', '+@all'), 'OK');
    const u = await RawClient.connect(s.port);
    const hello = await u.call('HELLO', '3', 'AUTH', 'sub', 'spw');
    assert.ok(typeof hello === 'object' && hello !== null && 'map' in hello);
    assert.equal(await u.call('ACL', 'WHOAMI'), 'sub');
    assert.deepEqual(await u.call('SUBSCRIBE', 'other'), { error: 'NOPERM this user has no permissions to access one of the channels used as arguments' });
    const denied = (await u.call('EVAL', "return redis.call('get', 'x')", '0')) as { error: string };
    assert.match(denied.error, /^ERR The user executing the script can't access at least one of the keys mentioned in the command arguments script: [0-9a-f]{40}, on @user_script:1\.$/);
    u.close();
    c.close();
  });

  it('ACL SAVE writes the file; ACL LOAD replaces the users and closes their connections', async () => {
    const c = await admin();
    assert.equal(await c.call('ACL', 'SETUSER', 'saved', 'on', 'nopass', '~s*', '+get'), 'OK');
    assert.equal(await c.call('ACL', 'SAVE'), 'OK');
    const text = readFileSync(aclfile, 'latin1');
    assert.match(text, /^user saved on nopass ~s\* resetchannels -@all \+get$/m);
    const u = await RawClient.connect(s.port);
    assert.equal(await u.call('AUTH', 'saved', 'x'), 'OK');
    writeFileSync(aclfile, `${text}user extra on nopass +ping\n`);
    assert.equal(await c.call('ACL', 'LOAD'), 'OK');
    await u.waitClosed();
    assert.ok(((await c.call('ACL', 'USERS')) as string[]).includes('extra'));
    writeFileSync(aclfile, 'user bad on +nosuch\n');
    assert.deepEqual(await c.call('ACL', 'LOAD'), { error: "ERR Error in ACL LOAD: /1: Error in user declaration '+nosuch': Unknown command or category name in ACL" });
    c.close();
  });
});

it('ioredis with username and password', async () => {
  const s = await startServer(['--workers', '1', '--storage-mode', 'unlogged']);
  try {
    const c = new Redis({ port: s.port, lazyConnect: true });
    await c.connect();
    await c.call('ACL', 'SETUSER', 'io', 'on', '>iopw', '~*', '+@read', '+ping');
    const r = new Redis({ port: s.port, username: 'io', password: 'iopw', lazyConnect: true, maxRetriesPerRequest: 0 });
    await r.connect();
    assert.equal(await r.get('k'), null);
    await assert.rejects(r.set('k', 'v'), /NOPERM this user has no permissions to run the 'set' command/);
    r.disconnect();
    c.disconnect();
  } finally {
    await s.stop();
  }
});
