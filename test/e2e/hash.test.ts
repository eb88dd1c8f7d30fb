/**
 * Hash commands against the real server and Postgres: one table per command group (replies as
 * Redis 7.0 gives them; collection-rows.ts), run one at a time and pipelined; then WRONGTYPE
 * mixes with strings, the empty hash disappearing, expiry, random fields and HSCAN.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient } from './resp-client';
import { E, arity, hasCommand, kNotFloat, kNotInt, kSyntax, kWrongType, runRows, sleep, startTarget, type Row, type Target } from './collection-rows';

let target: Target;
before(async () => { target = await startTarget(); });
after(async () => { await target.stop(); });

const tables: Record<string, Row[]> = {
  'HSET HGET HMGET HMSET HSETNX': [
    [['HSET', 'h', 'a', '1', 'b', '2'], 2],
    [['HSET', 'h', 'a', '3', 'c', '4', 'c', '5'], 1],
    [['HGET', 'h', 'a'], '3'],
    [['HGET', 'h', 'c'], '5'],
    [['HGET', 'h', 'zz'], null],
    [['HGET', 'nokey', 'a'], null],
    [['HMGET', 'h', 'a', 'zz', 'b', 'a'], ['3', null, '2', '3']],
    [['HMGET', 'nokey', 'a', 'b'], [null, null]],
    [['HMSET', 'h', 'd', '6'], 'OK'],
    [['HSETNX', 'h', 'd', '7'], 0],
    [['HSETNX', 'h', 'e', '8'], 1],
    [['HSETNX', 'new', 'f', 'v'], 1],
    [['HGET', 'h', 'e'], '8'],
    [['HSET', 'h', 'a'], arity('hset')],
    [['HSET', 'h', 'a', '1', 'b'], arity('hset')],
    [['HMSET', 'h', 'a', '1', 'b'], arity('hmset')],
    [['HGET', 'h'], arity('hget')],
    [['HSET', 'h', '', ''], 1],
    [['HGET', 'h', ''], ''],
  ],
  'HDEL HEXISTS HLEN HSTRLEN, empty hash disappears': [
    [['HSET', 'h', 'a', 'hello', 'b', '', 'c', 'x'], 3],
    [['HLEN', 'h'], 3],
    [['HSTRLEN', 'h', 'a'], 5],
    [['HSTRLEN', 'h', 'b'], 0],
    [['HSTRLEN', 'h', 'zz'], 0],
    [['HEXISTS', 'h', 'b'], 1],
    [['HEXISTS', 'h', 'zz'], 0],
    [['HEXISTS', 'nokey', 'a'], 0],
    [['HDEL', 'h', 'a', 'a', 'zz'], 1],
    [['HLEN', 'h'], 2],
    [['HDEL', 'h', 'b', 'c'], 2],
    [['EXISTS', 'h'], 0],
    [['HLEN', 'h'], 0],
    [['HDEL', 'h', 'a'], 0],
    [['HGETALL', 'h'], []],
    [['HSET', 'h', 'a', '1'], 1],
    [['HLEN', 'h'], 1],
  ],
  'HKEYS HVALS HGETALL (unordered)': [
    [['HSET', 'h', 'a', '1', 'b', '2', 'c', '3'], 3],
    [['HKEYS', 'h'], ['a', 'b', 'c'], 'unordered'],
    [['HVALS', 'h'], ['1', '2', '3'], 'unordered'],
    [['HGETALL', 'h'], ['a', '1', 'b', '2', 'c', '3'], 'unordered'],
    [['HKEYS', 'nokey'], []],
    [['HVALS', 'nokey'], []],
  ],
  'HINCRBY': [
    [['HINCRBY', 'h', 'n', '5'], 5],
    [['HINCRBY', 'h', 'n', '-7'], -2],
    [['HINCRBY', 'h', 'n', 'x'], kNotInt],
    [['HINCRBY', 'h', 'n', '1.5'], kNotInt],
    [['HSET', 'h', 's', 'abc', 'big', '9223372036854775807', 'sp', ' 1'], 3],
    [['HINCRBY', 'h', 's', '1'], E('ERR hash value is not an integer')],
    [['HINCRBY', 'h', 'sp', '1'], E('ERR hash value is not an integer')],
    [['HINCRBY', 'h', 'big', '1'], E('ERR increment or decrement would overflow')],
    [['HINCRBY', 'h', 'big', '-1'], 9223372036854775806],
    [['HINCRBY', 'fresh', 'f', '-9223372036854775808'], -9223372036854775808],
    [['HINCRBY', 'fresh', 'f', '-1'], E('ERR increment or decrement would overflow')],
    [['HGET', 'h', 'n'], '-2'],
  ],
  'HINCRBYFLOAT (long double, like Redis)': [
    [['HINCRBYFLOAT', 'h', 'f', '0.1'], '0.1'],
    [['HINCRBYFLOAT', 'h', 'f', '0.2'], '0.3'],
    [['HINCRBYFLOAT', 'h', 'f', '-0.3'], '0'],
    [['HINCRBYFLOAT', 'h', 'f', '1e3'], '1000'],
    [['HINCRBYFLOAT', 'h', 'f', '0x10'], '1016'],
    [['HINCRBYFLOAT', 'h', 'f', 'abc'], kNotFloat],
    [['HINCRBYFLOAT', 'h', 'f', ' 1'], kNotFloat],
    [['HINCRBYFLOAT', 'h', 'f', 'inf'], E('ERR value is NaN or Infinity')],
    [['HSET', 'h', 'g', 'x', 'i', 'inf', 'n', '10'], 3],
    [['HINCRBYFLOAT', 'h', 'g', '1'], E('ERR hash value is not a float')],
    [['HINCRBYFLOAT', 'h', 'i', '1'], E('ERR increment would produce NaN or Infinity')],
    [['HINCRBYFLOAT', 'h', 'n', '2.5'], '12.5'],
    [['HINCRBYFLOAT', 'h', 'n', '1.5e-5'], '12.500015'],
    [['HGET', 'h', 'n'], '12.500015'],
  ],
  'WRONGTYPE against strings, and strings against hashes': [
    [['SET', 's', 'v'], 'OK'],
    [['HSET', 's', 'a', '1'], kWrongType],
    [['HGET', 's', 'a'], kWrongType],
    [['HMGET', 's', 'a'], kWrongType],
    [['HDEL', 's', 'a'], kWrongType],
    [['HLEN', 's'], kWrongType],
    [['HGETALL', 's'], kWrongType],
    [['HINCRBY', 's', 'a', '1'], kWrongType],
    [['HINCRBY', 's', 'a', 'x'], kNotInt],
    [['HINCRBYFLOAT', 's', 'a', 'x'], kNotFloat],
    [['HSCAN', 's', '0'], kWrongType],
    [['HRANDFIELD', 's'], kWrongType],
    [['HSET', 'h', 'a', '1'], 1],
    [['GET', 'h'], kWrongType],
    [['INCR', 'h'], kWrongType],
    [['SET', 'h', 'str'], 'OK'],
    [['GET', 'h'], 'str'],
    [['HGET', 'h', 'a'], kWrongType],
    [['DEL', 'h'], 1],
    [['HSET', 'h', 'b', '2'], 1],
    [['HGETALL', 'h'], ['b', '2']],
  ],
  'HRANDFIELD arguments': [
    [['HRANDFIELD', 'nokey'], null],
    [['HRANDFIELD', 'nokey', '3'], []],
    [['HSET', 'h', 'a', '1'], 1],
    [['HRANDFIELD', 'h'], 'a'],
    [['HRANDFIELD', 'h', '0'], []],
    [['HRANDFIELD', 'h', '5'], ['a']],
    [['HRANDFIELD', 'h', '-3'], ['a', 'a', 'a']],
    [['HRANDFIELD', 'h', '2', 'WITHVALUES'], ['a', '1']],
    [['HRANDFIELD', 'h', '-2', 'withvalues'], ['a', '1', 'a', '1']],
    [['HRANDFIELD', 'h', 'x'], kNotInt],
    [['HRANDFIELD', 'h', '1', 'bogus'], kSyntax],
    [['HRANDFIELD', 'h', '1', 'withvalues', 'x'], kSyntax],
    [['HRANDFIELD', 'h', '-9223372036854775808'], E('ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807')],
    [['HRANDFIELD', 'h', '9223372036854775807', 'withvalues'], E('ERR value is out of range')],
  ],
  'HSCAN arguments': [
    [['HSCAN', 'nokey', '0'], ['0', []]],
    [['HSCAN', 'nokey', '0', 'bogus'], ['0', []]],
    [['HSET', 'h', 'a', '1'], 1],
    [['HSCAN', 'h', '0'], ['0', ['a', '1']]],
    [['HSCAN', 'h', '0', 'MATCH', 'b*'], ['0', []]],
    [['HSCAN', 'h', '0', 'COUNT', '0'], kSyntax],
    [['HSCAN', 'h', '0', 'COUNT', 'x'], kNotInt],
    [['HSCAN', 'h', '0', 'bogus'], kSyntax],
    [['HSCAN', 'h', 'x'], E('ERR invalid cursor')],
    [['HSCAN', 'h', '18446744073709551616'], E('ERR invalid cursor')],
    [['HSCAN', 'h', ' 1'], E('ERR invalid cursor')],
  ],
};

describe('hash commands, one at a time', () => {
  for (const [name, rows] of Object.entries(tables)) it(name, () => runRows(target.port, rows, false));
});

describe('hash commands, pipelined (one write)', () => {
  for (const [name, rows] of Object.entries(tables)) it(name, () => runRows(target.port, rows, true));
});

describe('hash keys and time', () => {
  it('a hash write on an expired key starts a fresh hash; an expired hash reads as missing', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('DEL', 'k', 'e');
      assert.equal(await c.call('SET', 'k', 'v', 'PX', '100'), 'OK');
      assert.equal(await c.call('HSET', 'e', 'a', '1', 'b', '2'), 2);
      const pexpire = await hasCommand(c, 'pexpire');
      if (pexpire) assert.equal(await c.call('PEXPIRE', 'e', '100'), 1);
      await sleep(250);
      assert.equal(await c.call('HSET', 'k', 'a', '1'), 1);
      assert.deepEqual(await c.call('HGETALL', 'k'), ['a', '1']);
      assert.equal(await c.call('HLEN', 'k'), 1);
      if (pexpire) {
        assert.equal(await c.call('HLEN', 'e'), 0);
        assert.equal(await c.call('HGET', 'e', 'a'), null);
        assert.equal(await c.call('HSET', 'e', 'c', '3'), 1);
        assert.deepEqual(await c.call('HGETALL', 'e'), ['c', '3']);
        assert.equal(await c.call('TTL', 'e'), -1);
      }
    } finally {
      c.close();
    }
  });

  it('HSCAN visits every field once across pages while the hash does not change', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('DEL', 'big');
      const fields = Array.from({ length: 300 }, (_, i) => `f${i}`);
      assert.equal(await c.call('HSET', 'big', ...fields.flatMap((f) => [f, `v-${f}`])), 300);
      const seen = new Map<string, number>();
      let cursor = '0';
      let pages = 0;
      do {
        const [next, items] = (await c.call('HSCAN', 'big', cursor, 'COUNT', '25')) as [string, string[]];
        for (let i = 0; i < items.length; i += 2) {
          assert.equal(items[i + 1], `v-${items[i]}`);
          seen.set(items[i], (seen.get(items[i]) ?? 0) + 1);
        }
        cursor = next;
        pages++;
      } while (cursor !== '0' && pages < 100);
      assert.equal(cursor, '0');
      if (!process.env.E2E_ORACLE_PORT) assert.ok(pages >= 12, `${pages} pages`); // Redis may answer all at once
      assert.deepEqual([...seen.keys()].sort(), fields.sort());
      assert.ok([...seen.values()].every((n) => n === 1));
    } finally {
      c.close();
    }
  });

  it('HSCAN returns fields present for the whole scan while others are deleted', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('DEL', 'big');
      await c.call('HSET', 'big', ...Array.from({ length: 200 }, (_, i) => [`f${i}`, '1']).flat());
      const seen = new Set<string>();
      let cursor = '0';
      do {
        const [next, items] = (await c.call('HSCAN', 'big', cursor, 'COUNT', '20')) as [string, string[]];
        for (let i = 0; i < items.length; i += 2) seen.add(items[i]);
        // delete what was returned (and a few odd fields): the classic scan-and-delete loop
        const gone = items.filter((_, i) => i % 2 === 0);
        if (gone.length) await c.call('HDEL', 'big', ...gone);
        cursor = next;
      } while (cursor !== '0');
      assert.equal(seen.size, 200);
      assert.equal(await c.call('EXISTS', 'big'), 0);
    } finally {
      c.close();
    }
  });

  it('HRANDFIELD returns distinct fields of the hash, or repeats with a negative count', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('DEL', 'r');
      await c.call('HSET', 'r', ...Array.from({ length: 50 }, (_, i) => [`f${i}`, `v${i}`]).flat());
      const some = (await c.call('HRANDFIELD', 'r', '10')) as string[];
      assert.equal(new Set(some).size, 10);
      assert.ok(some.every((f) => /^f\d+$/.test(f)));
      const all = (await c.call('HRANDFIELD', 'r', '100', 'WITHVALUES')) as string[];
      assert.equal(all.length, 100);
      for (let i = 0; i < all.length; i += 2) assert.equal(all[i + 1], `v${all[i].slice(1)}`);
      const rep = (await c.call('HRANDFIELD', 'r', '-200')) as string[];
      assert.equal(rep.length, 200);
      const hits = new Set<string>();
      for (let i = 0; i < 200; i++) hits.add((await c.call('HRANDFIELD', 'r')) as string);
      assert.ok(hits.size >= 20, `only ${hits.size} distinct fields in 200 picks`);
    } finally {
      c.close();
    }
  });

  it('RESP3: HGETALL is a map, HRANDFIELD WITHVALUES pairs', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('HELLO', '3');
      await c.call('DEL', 'h3');
      await c.call('HSET', 'h3', 'a', '1');
      assert.deepEqual(await c.call('HGETALL', 'h3'), { map: [['a', '1']] });
      assert.deepEqual(await c.call('HGETALL', 'nokey'), { map: [] });
      assert.deepEqual(await c.call('HRANDFIELD', 'h3', '1', 'WITHVALUES'), [['a', '1']]);
    } finally {
      c.close();
    }
  });
});
