/**
 * TLS end to end, PostRESP beside redis-server 7.0 started with the same tls-* options:
 * redis-cli --tls, ioredis and node-redis with certificates; client certificates required,
 * optional and not asked for; a certificate of another CA and a plain-text client refused
 * without harm; CONFIG SET tls-cert-file reloading the certificate on every worker.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { startServer, type RunningServer } from './start-server';
import { freePort } from '../differential/oracle';
import { makeCerts, type TestCerts } from './tls-certs';

interface Target { name: string; tlsPort: number }

/** redis-cli with the given extra arguments (certificates), its stdout and stderr */
function cli(port: number, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10000 },
      (_e, out, err) => resolve(`${out}${err}`.trim()));
  });
}

/** One TLS connection: PING's reply, or how the connection ended without one. */
function tlsPing(port: number, opts: tls.ConnectionOptions): Promise<{ reply?: string; cn?: string; ended?: string }> {
  return new Promise((resolve) => {
    const s = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ...opts });
    let data = '';
    let cn: string | undefined;
    const done = (r: { reply?: string; ended?: string }) => { s.destroy(); resolve({ ...r, cn }); };
    s.once('secureConnect', () => { cn = String(s.getPeerCertificate().subject?.CN); s.write('PING\r\n'); });
    s.on('data', (d: Buffer) => { data += d.toString(); if (data.endsWith('\r\n')) done({ reply: data }); });
    s.once('error', (e: NodeJS.ErrnoException) => done({ ended: e.code ?? e.message }));
    s.once('close', () => done({ ended: 'closed' }));
  });
}

async function startRedisTls(args: string[]): Promise<{ port: number; child: ChildProcess; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postresp-tls-redis-'));
  const port = await freePort();
  const child = spawn('redis-server', ['--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1', '--save', '',
    '--appendonly', 'no', '--dir', dir, '--loglevel', 'warning', ...args], { stdio: 'ignore' });
  for (const end = Date.now() + 10000; Date.now() < end;) {
    const up = await new Promise<boolean>((r) => {
      const c = net.connect(port, '127.0.0.1', () => { c.destroy(); r(true); });
      c.once('error', () => r(false));
    });
    if (up) return { port, child, dir };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error('redis-server with TLS did not start');
}

describe('TLS', () => {
  let certs: TestCerts;
  let s: RunningServer;
  let redis: { port: number; child: ChildProcess; dir: string };
  let targets: Target[];
  let trusted: tls.ConnectionOptions;
  let httpPort: number;

  before(async () => {
    certs = makeCerts();
    const tlsArgs = ['--tls-cert-file', certs.serverCert, '--tls-key-file', certs.serverKey, '--tls-key-file-pass', certs.serverPass,
      '--tls-ca-cert-file', certs.ca];
    const [plain, tlsPort] = [await freePort(), await freePort()];
    httpPort = await freePort();
    [s, redis] = await Promise.all([
      startServer(['--port', String(plain), '--tls-port', String(tlsPort), ...tlsArgs, '--workers', '2', '--storage-mode', 'unlogged',
        '--http-port', String(httpPort), '--http-tls', 'yes']),
      startRedisTls(tlsArgs),
    ]);
    targets = [{ name: 'postresp', tlsPort }, { name: 'redis', tlsPort: redis.port }];
    trusted = { ca: certs.read(certs.ca), cert: certs.read(certs.clientCert), key: certs.read(certs.clientKey) };
  });
  after(async () => {
    redis?.child.kill('SIGTERM');
    await s?.stop();
    if (redis) fs.rmSync(redis.dir, { recursive: true, force: true });
    certs?.remove();
  });

  const both = async (cmd: string[], extra: (t: Target) => string[] = () => []) => {
    const auth = ['--tls', '--cacert', certs.ca, '--cert', certs.clientCert, '--key', certs.clientKey];
    const [a, b] = await Promise.all(targets.map((t) => cli(t.tlsPort, [...auth, ...extra(t), ...cmd])));
    return { postresp: a, redis: b };
  };

  it('redis-cli --tls: the same replies as redis-server, the plain port still plain', async () => {
    for (const cmd of [['SET', 'tls:k', 'v'], ['GET', 'tls:k'], ['CONFIG', 'GET', 'tls-auth-clients'], ['CONFIG', 'GET', 'tls-protocols'],
      ['CONFIG', 'GET', 'tls-session-caching'], ['CONFIG', 'GET', 'tls-prefer-server-ciphers'], ['CONFIG', 'SET', 'tls-protocols', 'TLSv9'],
      ['CONFIG', 'SET', 'tls-auth-clients', 'maybe'], ['CONFIG', 'SET', 'tls-key-file', '/nonexistent/key.pem']]) {
      const r = await both(cmd);
      assert.equal(r.postresp, r.redis, cmd.join(' '));
    }
    assert.equal(await cli(s.port, ['PING']), 'PONG');
  });

  it('ioredis and node-redis with tls options', async () => {
    const io = new Redis({ host: '127.0.0.1', port: targets[0].tlsPort, tls: { ...trusted, servername: 'localhost' }, lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await io.connect();
      const big = 'x'.repeat(200 * 1024);
      const res = await io.pipeline().set('tls:io', big).get('tls:io').ping().exec();
      assert.deepEqual(res?.map(([e, v]) => [e, v]), [[null, 'OK'], [null, big], [null, 'PONG']]);
    } finally { io.disconnect(); }
    const nr = createClient({ socket: { host: '127.0.0.1', port: targets[0].tlsPort, tls: true, servername: 'localhost', ...trusted } });
    nr.on('error', () => undefined);
    try {
      await nr.connect();
      await nr.set('tls:nr', 'v1');
      assert.equal(await nr.get('tls:nr'), 'v1');
      assert.equal(await nr.incr('tls:n'), 1);
    } finally { await nr.quit(); }
  });

  it('tls-auth-clients yes: no certificate, or one of another CA, refused by both servers', async () => {
    const stranger = { ca: trusted.ca, cert: certs.read(certs.strangerCert), key: certs.read(certs.strangerKey) };
    for (const t of targets) {
      assert.equal((await tlsPing(t.tlsPort, trusted)).reply, '+PONG\r\n', t.name);
      assert.equal((await tlsPing(t.tlsPort, { ca: trusted.ca })).reply, undefined, `${t.name} without certificate`);
      assert.equal((await tlsPing(t.tlsPort, stranger)).reply, undefined, `${t.name} with a stranger's certificate`);
    }
  });

  it('a plain-text client on the TLS port is closed, and leaves nothing behind', async () => {
    const clients = async () => /connected_clients:(\d+)/.exec(await cli(s.port, ['INFO', 'clients']))![1];
    const before = await clients();
    for (const t of targets) {
      const got = await new Promise<string>((resolve) => {
        const c = net.connect(t.tlsPort, '127.0.0.1', () => c.write('PING\r\nSET a b\r\n'));
        let data = '';
        c.on('data', (d: Buffer) => { data += d.toString('latin1'); });
        c.once('error', () => undefined);
        c.once('close', () => resolve(data));
      });
      assert.doesNotMatch(got, /PONG|OK/, t.name);
    }
    // the refused connection is gone from the worker (it may take the close a moment to arrive)
    for (let i = 0; i < 100 && await clients() !== before; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await clients(), before);
    assert.equal((await tlsPing(targets[0].tlsPort, trusted)).reply, '+PONG\r\n');
    assert.doesNotMatch(s.output(), /uncaught|TypeError|died/i);
  });

  it('tls-auth-clients optional and no, set with CONFIG SET', async () => {
    const stranger = { ca: trusted.ca, cert: certs.read(certs.strangerCert), key: certs.read(certs.strangerKey) };
    assert.deepEqual(await both(['CONFIG', 'SET', 'tls-auth-clients', 'optional']), { postresp: 'OK', redis: 'OK' });
    for (const t of targets) {
      assert.equal((await tlsPing(t.tlsPort, { ca: trusted.ca })).reply, '+PONG\r\n', `${t.name} optional, none sent`);
      assert.equal((await tlsPing(t.tlsPort, trusted)).reply, '+PONG\r\n', `${t.name} optional, trusted`);
      assert.equal((await tlsPing(t.tlsPort, stranger)).reply, undefined, `${t.name} optional, stranger`);
    }
    assert.deepEqual(await both(['CONFIG', 'SET', 'tls-auth-clients', 'no']), { postresp: 'OK', redis: 'OK' });
    for (const t of targets) assert.equal((await tlsPing(t.tlsPort, { ca: trusted.ca })).reply, '+PONG\r\n', `${t.name} no`);
    assert.deepEqual(await both(['CONFIG', 'SET', 'tls-auth-clients', 'yes']), { postresp: 'OK', redis: 'OK' });
    for (const t of targets) assert.equal((await tlsPing(t.tlsPort, { ca: trusted.ca })).reply, undefined, `${t.name} yes again`);
  });

  it('CONFIG SET tls-cert-file/tls-key-file: new connections on every worker get the new certificate, open ones keep working', async () => {
    const open = await new Promise<tls.TLSSocket>((r) => {
      const c = tls.connect({ host: '127.0.0.1', port: targets[0].tlsPort, servername: 'localhost', ...trusted }, () => r(c));
    });
    assert.equal((await tlsPing(targets[0].tlsPort, trusted)).cn, 'localhost');
    const r = await both(['CONFIG', 'SET', 'tls-cert-file', certs.server2Cert, 'tls-key-file', certs.server2Key, 'tls-key-file-pass', '']);
    assert.deepEqual(r, { postresp: 'OK', redis: 'OK' });
    // workers take new connections by fewest clients: four at once reach both of them
    const pings = await Promise.all([0, 1, 2, 3].map(() => tlsPing(targets[0].tlsPort, trusted)));
    for (const p of pings) assert.deepEqual(p, { reply: '+PONG\r\n', cn: 'reloaded' });
    assert.equal((await tlsPing(redis.port, trusted)).cn, 'reloaded');
    const reply = await new Promise<string>((res) => { open.once('data', (d: Buffer) => res(d.toString())); open.write('PING\r\n'); });
    assert.equal(reply, '+PONG\r\n');
    open.destroy();
  });

  it('--http-tls: the admin HTTP answers over TLS with the server certificate (encrypted key)', async () => {
    const body = await new Promise<string>((resolve, reject) => {
      https.get({ host: '127.0.0.1', port: httpPort, path: '/healthz', ca: trusted.ca, servername: 'localhost' }, (res) => {
        let b = '';
        res.on('data', (d: Buffer) => { b += d.toString(); });
        res.on('end', () => resolve(`${res.statusCode} ${b}`));
      }).once('error', reject);
    });
    assert.equal(body, '200 ok\n');
  });
});
