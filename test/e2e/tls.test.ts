/**
 * TLS end to end, PostRESP beside redis-server 7.0 started with the same tls-* options:
 * redis-cli --tls, ioredis and node-redis with certificates; client certificates required,
 * optional and not asked for; a certificate of another CA and a plain-text client refused
 * without harm; CONFIG SET tls-cert-file reloading the certificate on every worker.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
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
      // only the last newline: an empty value at the end of CONFIG GET's output is a line too
      (_e, out, err) => resolve(`${out}${err}`.replace(/\n$/, '')));
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
    assert.match((await both(['CLIENT', 'INFO'])).postresp, /^id=\d+ addr=127\.0\.0\.1:\d+ laddr=127\.0\.0\.1:\d+ /);
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

  it('CONFIG GET tls-* equals redis-server\'s, names and values', async () => {
    const pairs = (text: string) => {
      const lines = text.split('\n');
      return Array.from({ length: lines.length / 2 }, (_, i) => `${lines[2 * i]}=${lines[2 * i + 1]}`).sort();
    };
    const r = await both(['CONFIG', 'GET', 'tls-*']);
    // the ports differ; everything else was given the same or is a default
    const norm = (t: string) => pairs(t).filter((p) => !p.startsWith('tls-port='));
    assert.deepEqual(norm(r.postresp), norm(r.redis));
    assert.equal(norm(r.postresp).length, 19);
  });

  it('a session ticket from one worker resumes on every worker, as on redis-server', async () => {
    for (const t of targets) {
      // the ticket comes after the handshake (TLSv1.3): wait for it and for PING's reply, then close
      const session = await new Promise<Buffer>((resolve, reject) => {
        const c = tls.connect({ host: '127.0.0.1', port: t.tlsPort, servername: 'localhost', ...trusted });
        let ticket: Buffer | undefined;
        let replied = false;
        const maybe = () => { if (ticket && replied) { c.end(); resolve(ticket); } };
        c.once('session', (sess: Buffer) => { ticket = sess; maybe(); });
        c.once('secureConnect', () => c.write('PING\r\n'));
        c.once('data', () => { replied = true; maybe(); });
        c.once('error', (e) => reject(new Error(`${t.name}: ${e.message}`)));
      });
      const reused = await Promise.all([0, 1, 2, 3].map(() => new Promise<boolean>((resolve, reject) => {
        const c = tls.connect({ host: '127.0.0.1', port: t.tlsPort, servername: 'localhost', ...trusted, session });
        c.once('secureConnect', () => c.write('PING\r\n'));
        c.once('data', () => { resolve(c.isSessionReused()); c.end(); });
        c.once('error', (e) => reject(new Error(`${t.name}: ${e.message}`)));
      })));
      assert.deepEqual(reused, [true, true, true, true], t.name);
    }
  });

  it('tls-protocols, tls-ciphersuites and tls-ca-cert-dir set live, judged as redis-server judges them', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postresp-tls-cadir-'));
    try {
      assert.deepEqual(await both(['CONFIG', 'SET', 'tls-protocols', 'TLSv1.3']), { postresp: 'OK', redis: 'OK' });
      for (const t of targets) {
        assert.equal((await tlsPing(t.tlsPort, { ...trusted, maxVersion: 'TLSv1.2' })).reply, undefined, `${t.name} TLSv1.2 refused`);
        assert.equal((await tlsPing(t.tlsPort, trusted)).reply, '+PONG\r\n', `${t.name} TLSv1.3`);
      }
      assert.deepEqual(await both(['CONFIG', 'SET', 'tls-ciphersuites', 'TLS_CHACHA20_POLY1305_SHA256']), { postresp: 'OK', redis: 'OK' });
      for (const t of targets) {
        const cipher = await new Promise<string>((resolve) => {
          const c = tls.connect({ host: '127.0.0.1', port: t.tlsPort, servername: 'localhost', ...trusted }, () => { resolve(c.getCipher().name); c.end(); });
        });
        assert.equal(cipher, 'TLS_CHACHA20_POLY1305_SHA256', t.name);
      }
      // OpenSSL's CApath: certificates under their subject hash
      const hash = execFileSync('openssl', ['x509', '-hash', '-noout', '-in', certs.ca]).toString().trim();
      fs.copyFileSync(certs.ca, path.join(dir, `${hash}.0`));
      const r = await both(['CONFIG', 'SET', 'tls-protocols', '', 'tls-ciphersuites', '', 'tls-ca-cert-file', '', 'tls-ca-cert-dir', dir]);
      assert.deepEqual(r, { postresp: 'OK', redis: 'OK' });
      for (const t of targets) assert.equal((await tlsPing(t.tlsPort, trusted)).reply, '+PONG\r\n', `${t.name} CA from the folder`);
      // no CA at all while tls-auth-clients is yes: refused by both, with the same words
      const none = await both(['CONFIG', 'SET', 'tls-ca-cert-dir', '']);
      assert.equal(none.postresp, none.redis);
      assert.match(none.postresp, /Unable to update TLS configuration/);
      assert.deepEqual(await both(['CONFIG', 'SET', 'tls-ca-cert-file', certs.ca, 'tls-ca-cert-dir', '']), { postresp: 'OK', redis: 'OK' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('TLS listener options at start', () => {
  it('--port 0 with --tls-port: no plain listener; a TLS port without a certificate stops the start with Redis\'s reason', async () => {
    const certs = makeCerts();
    const tlsPort = await freePort();
    const s = await startServer(['--tls-port', String(tlsPort), '--tls-cert-file', certs.server2Cert, '--tls-key-file', certs.server2Key,
      '--tls-auth-clients', 'no', '--workers', '1', '--storage-mode', 'unlogged']);
    try {
      assert.equal(s.port, tlsPort);
      assert.match(s.output(), /Ready to accept connections tls 127\.0\.0\.1:/);
      assert.doesNotMatch(s.output(), /connections tcp/);
      assert.equal((await tlsPing(tlsPort, { ca: certs.read(certs.ca) })).reply, '+PONG\r\n');
      await assert.rejects(startServer(['--tls-port', String(await freePort())]), /Failed to configure TLS: No tls-cert-file configured!/);
      await assert.rejects(startServer(['--tls-port', String(await freePort()), '--tls-cert-file', certs.server2Cert, '--tls-key-file', certs.server2Key]),
        /Either tls-ca-cert-file or tls-ca-cert-dir must be specified/);
    } finally {
      await s.stop();
      certs.remove();
    }
  });
});
