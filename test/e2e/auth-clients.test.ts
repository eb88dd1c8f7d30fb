/**
 * End to end: real clients on a password-protected server. Once a connection has authenticated
 * (ioredis and node-redis with RESP2 send AUTH, node-redis with RESP3 sends HELLO 3 AUTH,
 * redis-cli -a sends AUTH), commands of more than 10 arguments and values over 16 KiB must work:
 * Redis's tighter protocol limits hold only before authentication.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import Redis from 'ioredis';
import { createClient } from 'redis';
import { startServer, type RunningServer } from './start-server';

const kPass = 's3cret';
const keys = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}:${i}`);
const kBig = 'b'.repeat(20 * 1024);
const kHuge = 'h'.repeat(1024 * 1024);

/** redis-cli -a PASS -x ARGS… < input: its stdout */
function redisCliStdin(port: number, args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('redis-cli', ['-p', String(port), '--no-auth-warning', '-a', kPass, '-x', ...args]);
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    child.once('error', reject);
    child.once('exit', () => resolve(out.trim()));
    child.stdin.end(input);
  });
}

describe('password-protected server with real clients', () => {
  let s: RunningServer;
  before(async () => { s = await startServer(['--requirepass', kPass, '--workers', '2', '--storage-mode', 'unlogged']); });
  after(async () => { await s?.stop(); });

  it('ioredis: the first command after ready is an MGET of 20 keys; pipelines of large commands and values', async () => {
    const r = new Redis({ port: s.port, host: '127.0.0.1', password: kPass, lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await r.connect();
      assert.deepEqual(await r.mget(...keys('io', 20)), Array(20).fill(null));
      const pairs = keys('io', 20).flatMap((k, i) => [k, `v${i}`]);
      const p = r.pipeline();
      for (let i = 0; i < 50; i++) p.mset(...pairs).mget(...keys('io', 20)).set(`io:big:${i}`, kBig);
      p.set('io:huge', kHuge).get('io:huge').strlen('io:big:49');
      const res = await p.exec();
      assert.ok(res !== null && res.every(([err]) => err === null), JSON.stringify(res?.find(([e]) => e)));
      assert.deepEqual(res[1][1], keys('io', 20).map((_, i) => `v${i}`));
      assert.equal(res.at(-2)![1], kHuge);
      assert.equal(res.at(-1)![1], kBig.length);
    } finally {
      r.disconnect();
    }
  });

  for (const RESP of [2, 3] as const) {
    it(`node-redis RESP${RESP} (${RESP === 3 ? 'HELLO 3 AUTH' : 'AUTH'}): MSET/MGET of 20 keys, auto-pipelined batches, large values`, async () => {
      const c = createClient({ socket: { port: s.port, host: '127.0.0.1', reconnectStrategy: false }, password: kPass, RESP });
      c.on('error', () => undefined);
      await c.connect();
      try {
        const ks = keys(`nr${RESP}`, 20);
        assert.equal(await c.mSet(ks.map((k, i) => [k, `v${i}`] as [string, string])), 'OK');
        assert.deepEqual(await c.mGet(ks), ks.map((_, i) => `v${i}`));
        // commands issued in one tick go out in one write: a pipeline
        const replies = await Promise.all([
          ...Array.from({ length: 50 }, (_, i) => c.set(`nr${RESP}:big:${i}`, kBig)),
          ...Array.from({ length: 50 }, () => c.mGet(ks)),
          c.set(`nr${RESP}:huge`, kHuge),
          c.get(`nr${RESP}:huge`),
        ]);
        assert.equal(replies.at(-1), kHuge);
        assert.deepEqual(replies[50], ks.map((_, i) => `v${i}`));
        const m = c.multi();
        for (let i = 0; i < 20; i++) m.get(`nr${RESP}:big:${i}`);
        const got = await m.exec();
        assert.deepEqual(got, Array(20).fill(kBig));
      } finally {
        c.destroy();
      }
    });
  }

  it('redis-cli -a PASS -x SET of a 20 kB value, and a 13-argument MSET', async () => {
    assert.equal(await redisCliStdin(s.port, ['set', 'cli:big'], kBig), 'OK');
    const r = new Redis({ port: s.port, host: '127.0.0.1', password: kPass, lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await r.connect();
      // redis-cli -x appends stdin as the last argument, with its final newline stripped or not by version: compare the prefix
      assert.ok((await r.get('cli:big'))!.startsWith(kBig));
      assert.equal(await r.call('MSET', 'a', '1', 'b', '2', 'c', '3', 'd', '4', 'e', '5', 'f', '6'), 'OK');
      assert.deepEqual(await r.mget('a', 'b', 'c', 'd', 'e', 'f'), ['1', '2', '3', '4', '5', '6']);
    } finally {
      r.disconnect();
    }
  });
});
