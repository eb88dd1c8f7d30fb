/**
 * End to end: `client-output-buffer-limit normal <hard> <soft> <seconds>` against a client that
 * pipelines GETs of a 100 KB value and does not read, on PostRESP and on redis-server (the oracle):
 * the same scenario, the same expectations.
 *
 *   hard 1mb        → closed at once; the server keeps serving the others
 *   soft 1mb for 2s → still connected after 1 s, closed after 2 s, even with no reply written
 *                     meanwhile (Redis checks in clientsCron)
 *   0 0 0 (default) → never closed: a slow reader gets every reply, then the connection still works
 *
 * 300 replies of 100 KB (30 MB) are several times what the kernel buffers on loopback hold.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startRedis } from '../differential/oracle';
import { RawClient, encode } from './resp-client';
import { startServer } from './start-server';

const kValue = Buffer.alloc(100_000, 'v');
const kGets = 300;
const kReplyBytes = `$${kValue.length}\r\n`.length + kValue.length + 2;

interface Target { name: string; port: number; stop(): Promise<unknown> }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A raw socket that sends GETs and reads only when told to: what the server buffered is measured by what arrives. */
class StalledReader {
  received = 0;
  closed = false;
  private constructor(readonly socket: net.Socket, readonly id: number) {
    socket.on('data', (d: Buffer) => { this.received += d.length; });
    socket.on('close', () => { this.closed = true; });
    socket.on('error', () => undefined);
  }

  static async open(port: number): Promise<StalledReader> {
    const c = await RawClient.connect(port);
    const id = await c.call('CLIENT', 'ID');
    c.socket.removeAllListeners('data');
    c.socket.pause();
    return new StalledReader(c.socket, id as number);
  }

  sendGets(n: number): void {
    const one = encode('GET', 'coblimit:big');
    this.socket.write(Buffer.concat(Array.from({ length: n }, () => one)));
  }

  /** Reads in short bursts with pauses between them, until `bytes` arrived or the server closes. */
  async readSlowly(bytes: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.received < bytes && !this.closed && Date.now() < deadline) {
      this.socket.resume();
      await sleep(5);
      this.socket.pause();
      await sleep(5);
    }
    this.socket.resume();
  }

  async waitClosed(timeoutMs = 10_000): Promise<void> {
    this.socket.resume();
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await sleep(20);
  }
}

async function listed(admin: RawClient, id: number): Promise<boolean> {
  const list = await admin.call('CLIENT', 'LIST', 'ID', String(id));
  return typeof list === 'string' && list.includes(`id=${id} `);
}

/** ms from `since` until the client is no longer listed, or undefined if it still is after timeoutMs. */
async function goneAfter(admin: RawClient, id: number, since: number, timeoutMs: number): Promise<number | undefined> {
  while (Date.now() - since < timeoutMs) {
    if (!(await listed(admin, id))) return Date.now() - since;
    await sleep(50);
  }
  return undefined;
}

function suite(name: string, start: () => Promise<Target>): void {
  describe(`client-output-buffer-limit on ${name}`, () => {
    let target: Target;
    let admin: RawClient;
    before(async () => {
      target = await start();
      admin = await RawClient.connect(target.port);
      assert.equal(await admin.call('SET', 'coblimit:big', kValue), 'OK');
    });
    after(async () => {
      admin.close();
      await target.stop();
    });

    it('hard limit: a client that does not read is closed at once, the others are served', async () => {
      assert.equal(await admin.call('CONFIG', 'SET', 'client-output-buffer-limit', 'normal 1mb 0 0'), 'OK');
      const slow = await StalledReader.open(target.port);
      const sent = Date.now();
      slow.sendGets(kGets);
      const gone = await goneAfter(admin, slow.id, sent, 10_000);
      assert.ok(gone !== undefined, 'still listed by CLIENT LIST 10 s after going over the hard limit');
      assert.equal(await admin.call('PING'), 'PONG');
      const other = await RawClient.connect(target.port);
      assert.equal(await other.call('STRLEN', 'coblimit:big'), kValue.length);
      other.close();
      await slow.waitClosed();
      assert.ok(slow.closed, 'the socket of the client over the limit is closed');
      assert.ok(slow.received < kGets * kReplyBytes, `got all ${slow.received} bytes despite the limit`);
    });

    it('soft limit: closed only after the given seconds over it', async () => {
      assert.equal(await admin.call('CONFIG', 'SET', 'client-output-buffer-limit', 'normal 0 1mb 2'), 'OK');
      const slow = await StalledReader.open(target.port);
      const sent = Date.now();
      slow.sendGets(kGets);
      await sleep(1000);
      assert.ok(await listed(admin, slow.id), 'closed before the soft limit\'s 2 seconds');
      const gone = await goneAfter(admin, slow.id, sent, 10_000);
      assert.ok(gone !== undefined, 'still listed 10 s after going over the soft limit');
      assert.ok(gone >= 1900, `closed ${gone} ms after the GETs were sent, before 2 s over the soft limit`);
      await slow.waitClosed();
      assert.ok(slow.closed);
    });

    it('0 0 0 (the default): a slow reader eventually receives every reply', async () => {
      assert.equal(await admin.call('CONFIG', 'SET', 'client-output-buffer-limit', 'normal 0 0 0'), 'OK');
      const slow = await StalledReader.open(target.port);
      slow.sendGets(kGets);
      await sleep(1500);
      assert.ok(await listed(admin, slow.id), 'closed without an output limit');
      await slow.readSlowly(kGets * kReplyBytes);
      assert.equal(slow.received, kGets * kReplyBytes);
      assert.equal(slow.closed, false);
      // the connection still answers, in order, after the backlog
      slow.socket.removeAllListeners('data');
      const c = new Promise<string>((resolve) => slow.socket.once('data', (d: Buffer) => resolve(d.toString())));
      slow.socket.write(encode('PING'));
      assert.equal(await c, '+PONG\r\n');
      slow.socket.destroy();
    });

    it('a client that shuts down its sending side still receives every reply, then the server closes', async () => {
      const c = await RawClient.connect(target.port);
      c.send(Buffer.concat([encode('GET', 'coblimit:big'), encode('STRLEN', 'coblimit:big'), encode('PING')]));
      c.socket.end();
      const replies = await c.read(3);
      assert.equal((replies[0] as string).length, kValue.length);
      assert.deepEqual(replies.slice(1), [kValue.length, 'PONG']);
      await c.waitClosed();
    });

    it('QUIT: the reply arrives, then the server closes even if the client keeps its side open', async () => {
      // allowHalfOpen: this socket does not answer the server's FIN with its own
      const s = net.connect({ port: target.port, host: '127.0.0.1', allowHalfOpen: true });
      let text = '';
      s.on('data', (d: Buffer) => { text += d.toString(); });
      const ended = new Promise<void>((r) => s.once('end', () => r()));
      s.write(Buffer.concat([encode('CLIENT', 'ID'), encode('QUIT')]));
      await ended;
      const m = /^:(\d+)\r\n\+OK\r\n$/.exec(text);
      assert.ok(m, `replies ${JSON.stringify(text)}`);
      const gone = await goneAfter(admin, Number(m[1]), Date.now(), 5000);
      s.destroy();
      assert.ok(gone !== undefined, 'still in CLIENT LIST after QUIT while the client keeps its side open');
    });
  });
}

suite('PostRESP', async () => {
  // the flag sets the starting value; each test then uses CONFIG SET, as on redis-server
  const s = await startServer(['--client-output-buffer-limit', 'normal 1mb 0 0']);
  const c = await RawClient.connect(s.port);
  const value = await c.call('CONFIG', 'GET', 'client-output-buffer-limit');
  c.close();
  assert.match(String((value as string[])[1]), /^normal (1mb|1048576) 0 0\b/);
  return { name: 'PostRESP', port: s.port, stop: () => s.stop() };
});

suite('redis-server (oracle)', async () => {
  const r = await startRedis();
  return { name: 'redis-server', port: r.port, stop: () => r.stop() };
});
