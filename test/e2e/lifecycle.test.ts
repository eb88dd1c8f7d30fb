/**
 * End to end: AUTH, maxclients, worker crash recovery, graceful shutdown with commands in flight,
 * Unix socket, and real clients (redis-cli, ioredis).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { RawClient, encode } from './resp-client';
import { startServer } from './start-server';

const run = promisify(execFile);

describe('authentication', () => {
  it('requires the password, answers NOAUTH/WRONGPASS like Redis, accepts AUTH and HELLO AUTH', async () => {
    const s = await startServer(['--requirepass', 's3cret']);
    try {
      const c = await RawClient.connect(s.port);
      assert.deepEqual(await c.call('ECHO', 'x'), { error: 'NOAUTH Authentication required.' });
      assert.deepEqual(await c.call('AUTH', 'nope'), { error: 'WRONGPASS invalid username-password pair or user is disabled.' });
      assert.deepEqual(await c.call('AUTH', 'bob', 's3cret'), { error: 'WRONGPASS invalid username-password pair or user is disabled.' });
      assert.equal(await c.call('AUTH', 's3cret'), 'OK');
      assert.equal(await c.call('ECHO', 'x'), 'x');
      assert.equal(await c.call('RESET'), 'RESET');
      assert.deepEqual(await c.call('PING'), { error: 'NOAUTH Authentication required.' });
      const hello = await c.call('HELLO', '3', 'AUTH', 'default', 's3cret');
      assert.ok(typeof hello === 'object' && hello !== null && 'map' in hello);
      assert.equal(await c.call('PING'), 'PONG');
      c.close();
      // unauthenticated clients get Redis's tighter protocol limits
      const d = await RawClient.connect(s.port);
      d.send('*11\r\n');
      assert.deepEqual(await d.read(1), [{ error: 'ERR Protocol error: unauthenticated multibulk length' }]);
      await d.waitClosed();
      // redis-cli with -a
      const { stdout } = await run('redis-cli', ['-p', String(s.port), '--no-auth-warning', '-a', 's3cret', 'PING']);
      assert.equal(stdout.trim(), 'PONG');
    } finally {
      assert.equal(await s.stop(), 0);
    }
  });

  it('AUTH without a configured password gets Redis\'s error', async () => {
    const s = await startServer([]);
    try {
      const c = await RawClient.connect(s.port);
      assert.deepEqual(await c.call('AUTH', 'x'), { error: 'ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?' });
      assert.equal(await c.call('AUTH', 'default', 'anything'), 'OK');
      c.close();
    } finally {
      await s.stop();
    }
  });
});

describe('limits and lifecycle', () => {
  it('rejects the client beyond maxclients with Redis\'s error', async () => {
    const s = await startServer(['--maxclients', '2', '--workers', '2']);
    try {
      const a = await RawClient.connect(s.port);
      const b = await RawClient.connect(s.port);
      assert.equal(await a.call('PING'), 'PONG');
      assert.equal(await b.call('PING'), 'PONG');
      const c = await RawClient.connect(s.port);
      assert.deepEqual(await c.read(1), [{ error: 'ERR max number of clients reached' }]);
      await c.waitClosed();
      a.close();
      // the slot frees up once a client leaves
      let ok = false;
      for (let i = 0; i < 50 && !ok; i++) {
        await new Promise((r) => setTimeout(r, 20));
        const d = await RawClient.connect(s.port);
        const [r] = await d.read(1, 200).catch(() => [undefined]);
        ok = r === undefined && (await d.call('PING')) === 'PONG';
        d.close();
      }
      assert.ok(ok, 'a new client is accepted after one left');
      b.close();
    } finally {
      await s.stop();
    }
  });

  it('a crashed worker loses only its clients; the thread is replaced', async () => {
    const s = await startServer(['--workers', '2', '--enable-debug-command', 'yes']);
    try {
      // least-loaded hand-off: two clients land on the two workers
      const a = await RawClient.connect(s.port);
      assert.equal(await a.call('PING'), 'PONG');
      const b = await RawClient.connect(s.port);
      assert.equal(await b.call('PING'), 'PONG');
      a.send(encode('DEBUG', 'PANIC'));
      await a.waitClosed();
      assert.equal(await b.call('ECHO', 'still here'), 'still here');
      let info = '';
      // a replacement thread starts Node, loads the addon and connects its lanes: seconds under load
      for (let i = 0; i < 400 && !/worker_restarts:1/.test(info); i++) {
        await new Promise((r) => setTimeout(r, 50));
        info = String(await b.call('INFO', 'server'));
      }
      assert.match(info, /worker_restarts:1/);
      // new clients are served by both workers again
      const clients = await Promise.all([1, 2, 3, 4].map(() => RawClient.connect(s.port)));
      for (const c of clients) assert.equal(await c.call('PING'), 'PONG');
      for (const c of clients) c.close();
      b.close();
    } finally {
      assert.equal(await s.stop(), 0);
    }
  });

  it('a worker that dies again soon after its restart waits before the next one', async () => {
    const s = await startServer(['--workers', '1', '--enable-debug-command', 'yes']);
    const served = async (): Promise<void> => {
      // no worker is ready while one restarts: connections are refused until it is
      for (let i = 0; i < 400; i++) {
        try {
          const c = await RawClient.connect(s.port);
          try { if (await c.call('PING') === 'PONG') return; } finally { c.close(); }
        } catch { /* refused or closed: not ready yet */ }
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.fail('no worker came back');
    };
    const panic = async (): Promise<void> => {
      const c = await RawClient.connect(s.port);
      c.send(encode('DEBUG', 'PANIC'));
      await c.waitClosed();
    };
    try {
      await panic();
      await served();
      assert.match(s.output(), /worker 0 died \(DEBUG PANIC[^\n]*restarting it\n/, 'the first death restarts at once');
      await panic();
      await served();
      assert.match(s.output(), /restarting it in 100 ms \(2 deaths within 30 s of a start in a row\)/);
    } finally {
      assert.equal(await s.stop(), 0);
    }
  });

  it('SIGTERM finishes commands in flight, flushes their replies and exits 0', async () => {
    const s = await startServer(['--workers', '1', '--enable-debug-command', 'yes']);
    const c = await RawClient.connect(s.port);
    assert.equal(await c.call('PING'), 'PONG');
    // the worker sleeps 300 ms in DEBUG SLEEP while the signal arrives; the PINGs after it
    // were already read, so they are answered before the connection closes
    c.send(Buffer.concat([encode('DEBUG', 'SLEEP', '0.3'), encode('PING'), encode('ECHO', 'last')]));
    await new Promise((r) => setTimeout(r, 100));
    const code = s.stop('SIGTERM');
    assert.deepEqual(await c.read(3), ['OK', 'PONG', 'last']);
    await c.waitClosed();
    assert.equal(await code, 0);
  });

  it('SHUTDOWN stops the server', async () => {
    const s = await startServer([]);
    const c = await RawClient.connect(s.port);
    assert.deepEqual(await c.call('SHUTDOWN', 'BOGUS'), { error: 'ERR syntax error' });
    c.send(encode('SHUTDOWN', 'NOSAVE'));
    await c.waitClosed();
    const code = await new Promise((r) => (s.child.exitCode !== null ? r(s.child.exitCode) : s.child.once('exit', r)));
    assert.equal(code, 0);
  });

  it('listens on a Unix socket with the given permissions', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postresp-sock-'));
    const sock = path.join(dir, 'p.sock');
    const s = await startServer(['--unixsocket', sock, '--unixsocketperm', '700']);
    try {
      assert.equal(fs.statSync(sock).mode & 0o777, 0o700);
      const c = await RawClient.connectPath(sock);
      assert.equal(await c.call('PING'), 'PONG');
      assert.match(String(await c.call('CLIENT', 'INFO')), new RegExp(`addr=${sock.replace(/[.]/g, '\\.')}:0`));
      c.close();
    } finally {
      await s.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('real clients', () => {
  it('redis-cli: PING, ECHO, INFO, RESP3 with -3', async () => {
    const s = await startServer([]);
    try {
      const cli = (...a: string[]) => run('redis-cli', ['-p', String(s.port), ...a]).then((r) => r.stdout.trim());
      assert.equal(await cli('PING'), 'PONG');
      assert.equal(await cli('ECHO', 'hi there'), 'hi there');
      assert.match(await cli('INFO', 'server'), /redis_version:7/);
      assert.match(await cli('-3', 'HELLO', '3'), /proto\s*\n?.*3/);
      assert.equal(await cli('CLIENT', 'GETNAME'), '');
    } finally {
      await s.stop();
    }
  });

  it('ioredis with auto-pipelining', async () => {
    const s = await startServer(['--workers', '2']);
    const r = new Redis({ port: s.port, host: '127.0.0.1', enableAutoPipelining: true, lazyConnect: true });
    try {
      await r.connect();
      const many = await Promise.all(Array.from({ length: 500 }, (_, i) => r.echo(`v${i}`)));
      many.forEach((v, i) => assert.equal(v, `v${i}`));
      assert.equal(await r.ping(), 'PONG');
      assert.equal(await r.client('SETNAME', 'io'), 'OK');
      assert.equal(await r.client('GETNAME'), 'io');
      const p = r.pipeline();
      p.ping(); p.echo('a'); p.time();
      const res = await p.exec();
      assert.equal(res?.[0][1], 'PONG');
      assert.equal(res?.[1][1], 'a');
    } finally {
      r.disconnect();
      await s.stop();
    }
  });
});
