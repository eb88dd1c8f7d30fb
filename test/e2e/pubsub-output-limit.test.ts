/**
 * End to end: client-output-buffer-limit's pubsub class. A subscriber that stops reading is
 * closed once its unsent output passes the hard limit, while another subscriber of the same
 * channel (on the other worker) keeps receiving every message and the publisher is never held up.
 * The limit is lowered to 1 MB here so the test pushes ~20 MB, not the default 32 MB plus the
 * kernel's socket buffers.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RawClient, encode } from './resp-client';
import { startServer, type RunningServer } from './start-server';

let s: RunningServer;
before(async () => {
  s = await startServer(['--workers', '2', '--storage-mode', 'unlogged']);
});
after(async () => {
  await s?.stop();
});

describe('pubsub output limit', () => {
  it('closes the subscriber that stopped reading; the other gets every message', async () => {
    const admin = await RawClient.connect(s.port);
    assert.equal(await admin.call('CONFIG', 'GET', 'client-output-buffer-limit').then((v) => (v as string[])[1]),
      'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60');
    assert.equal(await admin.call('CONFIG', 'SET', 'client-output-buffer-limit', 'pubsub 1mb 0 0'), 'OK');
    // the slow one: subscribes, then never reads again
    const slowId = await new Promise<number>((resolve) => {
      const sock = net.connect(s.port, '127.0.0.1', () => sock.write(Buffer.concat([encode('CLIENT', 'ID'), encode('SUBSCRIBE', 'feed')])));
      let got = '';
      sock.on('data', (d: Buffer) => {
        got += d.toString('latin1');
        const m = /^:(\d+)\r\n\*3\r\n\$9\r\nsubscribe\r\n\$4\r\nfeed\r\n:1\r\n/.exec(got);
        if (m) { sock.pause(); resolve(Number(m[1])); }
      });
      sock.on('error', () => undefined);
    });
    const fast = await RawClient.connect(s.port);
    fast.send(encode('SUBSCRIBE', 'feed'));
    await fast.read(1);
    const pub = await RawClient.connect(s.port);
    try {
      const chunk = Buffer.alloc(64 * 1024, 120);
      const total = 320;
      const counts: number[] = [];
      let received = 0;
      for (let i = 0; i < total; i += 16) {
        pub.send(Buffer.concat(Array.from({ length: 16 }, () => encode('PUBLISH', 'feed', chunk))));
        counts.push(...await pub.read(16) as number[]);
        received += (await fast.read(16)).length;
      }
      assert.equal(received, total);
      assert.equal(counts[0], 2);
      assert.equal(counts[counts.length - 1], 1, 'the slow subscriber was still counted at the end');
      const list = String(await admin.call('CLIENT', 'LIST'));
      assert.doesNotMatch(list, new RegExp(`id=${slowId} `));
      assert.match(list, /sub=1 psub=0 ssub=0/);
      assert.match(s.output(), new RegExp(`client id=${slowId} .*closed for overcoming of output buffer limits`));
    } finally {
      await admin.call('CONFIG', 'SET', 'client-output-buffer-limit', 'pubsub 32mb 8mb 60');
      for (const c of [admin, fast, pub]) c.close();
    }
  });
});
