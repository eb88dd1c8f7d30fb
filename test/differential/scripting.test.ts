/**
 * Differential: EVAL, EVALSHA, EVAL_RO, SCRIPT, FUNCTION and FCALL against redis-server 7.0.15,
 * byte for byte (scripting-cases.ts), one command at a time and as one pipeline; FUNCTION DUMP of
 * either server restored into the other.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient } from '../e2e/resp-client';
import { Oracle, report } from './oracle';
import { kCommandCases } from './scripting-cases';

let oracle: Oracle;
before(async () => { oracle = await Oracle.start(); });
after(async () => { await oracle?.stop(); });

const kLib = "#!lua name=dumped\nredis.register_function('dumped_fn', function() return 'restored ' .. string.rep('x', 40) end)";

async function resetScripts(): Promise<void> {
  await oracle.reset();
  for (const port of [oracle.redis.port, oracle.postresp.port]) {
    const c = await RawClient.connect(port);
    await c.call('SCRIPT', 'FLUSH');
    await c.call('FUNCTION', 'FLUSH');
    c.close();
  }
}

describe('scripting commands against redis-server 7.0.15', () => {
  for (const window of [1, Infinity]) {
    it(`answers every case as redis-server does (${window === 1 ? 'one at a time' : 'one pipeline'})`, async () => {
      await resetScripts();
      const r = await oracle.compare([kCommandCases], { window });
      assert.equal(r.mismatches.length, 0, report('scripting', 0, r));
    });
  }

  it('counts cached scripts in INFO memory as redis-server does, 0 after SCRIPT FLUSH', async () => {
    await resetScripts();
    const field = async (c: RawClient): Promise<string | undefined> =>
      /number_of_cached_scripts:(\d+)/.exec(String(await c.call('INFO', 'memory')))?.[1];
    for (const port of [oracle.redis.port, oracle.postresp.port]) {
      const c = await RawClient.connect(port);
      for (let i = 0; i < 5; i++) await c.call('SCRIPT', 'LOAD', `return ${i}`);
      await c.call('EVAL', 'return 5', '0');
      assert.equal(await field(c), '6', `port ${port}`);
      await c.call('SCRIPT', 'FLUSH', 'ASYNC');
      assert.equal(await field(c), '0', `port ${port}`);
      c.close();
    }
  });

  it('restores a FUNCTION DUMP of the other server (LZF-compressed from redis-server, plain from PostRESP)', async () => {
    await resetScripts();
    const redis = await RawClient.connect(oracle.redis.port);
    const ours = await RawClient.connect(oracle.postresp.port);
    try {
      assert.equal(await redis.call('FUNCTION', 'LOAD', kLib), 'dumped');
      const fromRedis = Buffer.from(await redis.call('FUNCTION', 'DUMP') as string, 'latin1');
      assert.equal(await ours.call('FUNCTION', 'RESTORE', fromRedis), 'OK');
      assert.equal(await ours.call('FCALL', 'dumped_fn', '0'), `restored ${'x'.repeat(40)}`);
      assert.deepEqual(await ours.call('FUNCTION', 'RESTORE', fromRedis), { error: 'ERR Library dumped already exists' });
      assert.equal(await ours.call('FUNCTION', 'RESTORE', fromRedis, 'REPLACE'), 'OK');
      const fromUs = Buffer.from(await ours.call('FUNCTION', 'DUMP') as string, 'latin1');
      assert.equal(await redis.call('FUNCTION', 'RESTORE', fromUs, 'FLUSH'), 'OK');
      assert.equal(await redis.call('FCALL', 'dumped_fn', '0'), `restored ${'x'.repeat(40)}`);
      const bad = Buffer.from(fromUs);
      bad[3] ^= 1;
      assert.deepEqual(await ours.call('FUNCTION', 'RESTORE', bad), { error: 'ERR DUMP payload version or checksum are wrong' });
    } finally {
      redis.close();
      ours.close();
    }
  });
});
