/**
 * End to end: protected mode. Every connection here goes to a loopback address. A peer that is
 * not local in Redis 7.0's sense is made by connecting to 127.0.0.1 *from* 127.0.0.2 (Redis 7.0
 * counts only 127.0.0.1 and ::1 as local, whatever `bind` says): redis-server 7.0.15 answers
 * DENIED to it, and PostRESP must too, with the same outcome for every password and
 * protected-mode state. Wildcard binds (`* -::*`, `::`) must still serve 127.0.0.1 and ::1.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kProtectedModeDenied } from '../../core/primary/protected-mode';
import { freePort, startRedis, type RedisServer } from '../differential/oracle';
import { RawClient } from './resp-client';
import { startServer, type RunningServer } from './start-server';

interface Probe { line: string; closed: boolean }

/**
 * Connects to host:port from `from`, waits a moment for an unprompted DENIED (sent at accept), else
 * sends PING: the first reply line, and whether the server then closed.
 */
function probe(port: number, host: string, from?: string): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ port, host, localAddress: from });
    let data = '';
    let closed = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      resolve({ line: data.slice(0, data.indexOf('\r\n') + 2), closed });
    };
    const timer = setTimeout(() => { done = true; s.destroy(); reject(new Error(`no reply from ${host}:${port} (from ${from}): ${JSON.stringify(data)}`)); }, 10000);
    s.on('connect', () => setTimeout(() => { if (!closed && data === '') s.write('PING\r\n'); }, 100));
    s.on('data', (d: Buffer) => {
      data += d.toString('latin1');
      // a DENIED is followed by the server closing: wait for it; any other reply is enough
      if (data.includes('\r\n') && !data.startsWith('-DENIED')) finish();
    });
    s.on('error', () => undefined);
    s.on('close', () => { closed = true; if (data.includes('\r\n')) finish(); });
  });
}

const word = (p: Probe) => `${p.line.split(/[ \r]/)[0]}${p.closed ? ' (closed)' : ''}`;

async function call(port: number, ...args: string[]): Promise<unknown> {
  const c = await RawClient.connect(port);
  try { return await c.call(...args); } finally { c.close(); }
}

describe('protected mode', () => {
  let redis: RedisServer;
  let s: RunningServer;
  before(async () => {
    [redis, s] = await Promise.all([startRedis(), startServer(['--workers', '1', '--storage-mode', 'unlogged'])]);
  });
  after(async () => { await Promise.all([redis?.stop(), s?.stop()]); });

  it('denies 127.0.0.2 like redis-server 7.0.15 while no password is set, for each password and protected-mode state', async () => {
    const outcomes = async (port: number) => {
      let password = '';
      const admin = async (...args: string[]) => {
        const c = await RawClient.connect(port);
        try {
          if (password !== '') await c.call('AUTH', password);
          return JSON.stringify(await c.call(...args));
        } finally { c.close(); }
      };
      const out: string[] = [];
      const both = async (label: string) => {
        out.push(`${label}: 127.0.0.1 ${word(await probe(port, '127.0.0.1'))}, 127.0.0.2 ${word(await probe(port, '127.0.0.1', '127.0.0.2'))}`);
      };
      out.push(`config get: ${await admin('CONFIG', 'GET', 'protected-mode')}`);
      await both('default');
      out.push(`set pw: ${await admin('CONFIG', 'SET', 'requirepass', 'pw')}`);
      password = 'pw';
      await both('password');
      out.push(`unset pw, set no: ${await admin('CONFIG', 'SET', 'requirepass', '', 'protected-mode', 'no')}`);
      password = '';
      await both('protected-mode no');
      out.push(`set bad: ${await admin('CONFIG', 'SET', 'protected-mode', 'maybe')}`);
      out.push(`set yes: ${await admin('CONFIG', 'SET', 'protected-mode', 'yes')}`);
      await both('protected-mode yes again');
      return out;
    };
    const expected = await outcomes(redis.port);
    assert.ok(expected.some((l) => l.includes('127.0.0.2 -DENIED (closed)')), expected.join('\n'));
    assert.deepEqual(await outcomes(s.port), expected);
  });

  it("sends PostRESP's DENIED text, closes and counts it in rejected_connections", async () => {
    const info = async () => Number(/rejected_connections:(\d+)/.exec(String(await call(s.port, 'INFO', 'stats')))![1]);
    const before = await info();
    const p = await probe(s.port, '127.0.0.1', '127.0.0.2');
    assert.equal(p.line, kProtectedModeDenied);
    assert.ok(p.closed);
    assert.equal(await info(), before + 1);
  });

  describe('wildcard binds', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postresp-protected-'));
    const sock = path.join(dir, 'postresp.sock');
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    for (const bind of ['* -::*', '::']) {
      it(`--bind '${bind}': 127.0.0.1 and ::1 are served, 127.0.0.2 is denied${bind === '::' ? ' (as ::ffff:127.0.0.2)' : ', the Unix socket is served'}`, async () => {
        // --port 0 with a Unix socket would mean no TCP at all
        const unix = bind === '::' ? [] : ['--unixsocket', sock, '--port', String(await freePort())];
        const w = await startServer(['--bind', bind, '--workers', '1', '--storage-mode', 'unlogged', ...unix]);
        try {
          assert.equal(word(await probe(w.port, '127.0.0.1')), '+PONG');
          assert.equal(word(await probe(w.port, '::1')), '+PONG');
          assert.equal(word(await probe(w.port, '127.0.0.1', '127.0.0.2')), '-DENIED (closed)');
          if (unix.length > 0) {
            const c = await RawClient.connectPath(sock);
            assert.equal(await c.call('PING'), 'PONG');
            c.close();
          }
        } finally {
          await w.stop();
        }
      });
    }
  });
});
