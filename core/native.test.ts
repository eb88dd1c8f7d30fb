// The addon's socket helpers on real loopback sockets: the descriptor hand-off (dupFd) and the
// direct reply send (sendFd) that workers use while nothing is queued in the net.Socket.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import os from 'node:os';
import { once } from 'node:events';
import { loadNative } from './native';

const native = loadNative();

/** A connected loopback pair; `fd` is the descriptor of the server-side socket. */
async function pair(): Promise<{ client: net.Socket; server: net.Socket; fd: number; close(): void }> {
  const listener = net.createServer({ pauseOnConnect: true });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const accepted = once(listener, 'connection') as Promise<[net.Socket]>;
  const client = net.connect((listener.address() as net.AddressInfo).port, '127.0.0.1');
  const [server] = await accepted;
  const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
  return { client, server, fd, close: () => { client.destroy(); server.destroy(); listener.close(); } };
}

describe('native socket helpers', () => {
  it('sendFd sends the bytes and returns their count', async () => {
    const p = await pair();
    try {
      const got = once(p.client, 'data') as Promise<[Buffer]>;
      assert.equal(native.sendFd(p.fd, Buffer.from('+PONG\r\n')), 7);
      assert.equal((await got)[0].toString(), '+PONG\r\n');
    } finally {
      p.close();
    }
  });

  it('sendFd returns a short count, then -EAGAIN, when the peer does not read', async () => {
    const p = await pair();
    try {
      p.client.pause();
      const block = Buffer.alloc(256 * 1024, 'x');
      let total = 0;
      let last = 0;
      for (let i = 0; i < 10000; i++) {
        last = native.sendFd(p.fd, block);
        if (last < 0) break;
        total += last;
      }
      assert.equal(last, -os.constants.errno.EAGAIN);
      assert.ok(total > 0 && total < 10000 * block.length, `sent ${total} bytes before the socket filled`);
    } finally {
      p.close();
    }
  });

  it('sendFd reports errors as -errno and never throws for a bad descriptor', () => {
    const fd = native.dupFd(0);
    native.closeFd(fd);
    assert.equal(native.sendFd(fd, Buffer.from('x')), -os.constants.errno.EBADF);
    assert.throws(() => native.sendFd(-1, Buffer.from('x')), /expected sendFd/);
  });

  it('dupFd gives a second descriptor of the same socket', async () => {
    const p = await pair();
    try {
      const copy = native.dupFd(p.fd);
      assert.notEqual(copy, p.fd);
      const got = once(p.client, 'data') as Promise<[Buffer]>;
      assert.equal(native.sendFd(copy, Buffer.from('via copy')), 8);
      assert.equal((await got)[0].toString(), 'via copy');
      native.closeFd(copy);
    } finally {
      p.close();
    }
  });
});
