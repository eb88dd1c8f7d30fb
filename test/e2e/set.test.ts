/**
 * Set commands against the real server and Postgres: tables (collection-rows.ts; unordered
 * replies compared as multisets), one at a time and pipelined; then random members, SSCAN,
 * expiry and RESP3 shapes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient } from './resp-client';
import { E, hasCommand, kNotInt, kSyntax, kWrongType, runRows, sleep, startTarget, type Row, type Target } from './collection-rows';

let target: Target;
before(async () => { target = await startTarget(); });
after(async () => { await target.stop(); });

const kPositive = E('ERR value is out of range, must be positive');

const tables: Record<string, Row[]> = {
  'SADD SREM SCARD SISMEMBER SMISMEMBER SMEMBERS': [
    [['SADD', 's', 'a', 'b', 'a', 'c'], 3],
    [['SADD', 's', 'c', 'd'], 1],
    [['SCARD', 's'], 4],
    [['SISMEMBER', 's', 'a'], 1],
    [['SISMEMBER', 's', 'z'], 0],
    [['SISMEMBER', 'nokey', 'a'], 0],
    [['SMISMEMBER', 's', 'a', 'z', 'd', 'a'], [1, 0, 1, 1]],
    [['SMISMEMBER', 'nokey', 'a', 'b'], [0, 0]],
    [['SMEMBERS', 's'], ['a', 'b', 'c', 'd'], 'unordered'],
    [['SMEMBERS', 'nokey'], []],
    [['SREM', 's', 'a', 'a', 'z'], 1],
    [['SREM', 'nokey', 'a'], 0],
    [['SCARD', 's'], 3],
    [['SREM', 's', 'b', 'c', 'd'], 3],
    [['EXISTS', 's'], 0],
    [['SCARD', 's'], 0],
    [['SADD', 's', ''], 1],
    [['SISMEMBER', 's', ''], 1],
    [['SADD', 's'], E("ERR wrong number of arguments for 'sadd' command")],
  ],
  'SINTER SUNION SDIFF SINTERCARD (unordered)': [
    [['SADD', 'a', '1', '2', '3', '4'], 4],
    [['SADD', 'b', '3', '4', '5'], 3],
    [['SADD', 'c', '4', '5', '6'], 3],
    [['SINTER', 'a', 'b'], ['3', '4'], 'unordered'],
    [['SINTER', 'a', 'b', 'c'], ['4']],
    [['SINTER', 'a', 'nokey'], []],
    [['SINTER', 'a', 'a'], ['1', '2', '3', '4'], 'unordered'],
    [['SUNION', 'a', 'b', 'nokey'], ['1', '2', '3', '4', '5'], 'unordered'],
    [['SUNION', 'nokey'], []],
    [['SDIFF', 'a', 'b'], ['1', '2'], 'unordered'],
    [['SDIFF', 'a', 'b', 'c', 'a'], []],
    [['SDIFF', 'nokey', 'a'], []],
    [['SDIFF', 'a', 'nokey'], ['1', '2', '3', '4'], 'unordered'],
    [['SINTERCARD', '2', 'a', 'b'], 2],
    [['SINTERCARD', '2', 'a', 'b', 'LIMIT', '1'], 1],
    [['SINTERCARD', '2', 'a', 'b', 'LIMIT', '0'], 2],
    [['SINTERCARD', '1', 'nokey'], 0],
    [['SINTERCARD', '0', 'a'], E('ERR numkeys should be greater than 0')],
    [['SINTERCARD', 'x', 'a'], E('ERR numkeys should be greater than 0')],
    [['SINTERCARD', '3', 'a', 'b'], E("ERR Number of keys can't be greater than number of args")],
    [['SINTERCARD', '1', 'a', 'LIMIT', '-1'], E("ERR LIMIT can't be negative")],
    [['SINTERCARD', '1', 'a', 'b'], kSyntax],
  ],
  'S*STORE replace the destination, whatever it held': [
    [['SADD', 'a', '1', '2', '3'], 3],
    [['SADD', 'b', '2', '3', '4'], 3],
    [['SET', 'd', 'string'], 'OK'],
    [['SINTERSTORE', 'd', 'a', 'b'], 2],
    [['SMEMBERS', 'd'], ['2', '3'], 'unordered'],
    [['SUNIONSTORE', 'd', 'a', 'b'], 4],
    [['SCARD', 'd'], 4],
    [['SDIFFSTORE', 'd', 'a', 'b'], 1],
    [['SMEMBERS', 'd'], ['1']],
    [['SDIFFSTORE', 'a', 'a', 'b'], 1],
    [['SMEMBERS', 'a'], ['1']],
    [['SINTERSTORE', 'd', 'a', 'nokey'], 0],
    [['EXISTS', 'd'], 0],
    [['HSET', 'h', 'f', 'v'], 1],
    [['SUNIONSTORE', 'h', 'b'], 3],
    [['SCARD', 'h'], 3],
    [['SUNIONSTORE', 'x', 'b', 'd'], 3],
  ],
  'SMOVE': [
    [['SADD', 'a', '1', '2'], 2],
    [['SMOVE', 'a', 'b', '1'], 1],
    [['SMOVE', 'a', 'b', '1'], 0],
    [['SMEMBERS', 'b'], ['1']],
    [['SMOVE', 'a', 'b', '2'], 1],
    [['EXISTS', 'a'], 0],
    [['SCARD', 'b'], 2],
    [['SMOVE', 'b', 'b', '1'], 1],
    [['SMOVE', 'b', 'b', 'z'], 0],
    [['SADD', 'c', '1'], 1],
    [['SMOVE', 'b', 'c', '1'], 1],
    [['SCARD', 'c'], 1],
    [['SCARD', 'b'], 1],
    [['SMOVE', 'nokey', 'c', '1'], 0],
  ],
  'SPOP SRANDMEMBER arguments': [
    [['SPOP', 'nokey'], null],
    [['SPOP', 'nokey', '3'], []],
    [['SRANDMEMBER', 'nokey'], null],
    [['SRANDMEMBER', 'nokey', '3'], []],
    [['SADD', 's', 'a'], 1],
    [['SRANDMEMBER', 's'], 'a'],
    [['SRANDMEMBER', 's', '5'], ['a']],
    [['SRANDMEMBER', 's', '-3'], ['a', 'a', 'a']],
    [['SRANDMEMBER', 's', '0'], []],
    [['SRANDMEMBER', 's', 'x'], kNotInt],
    [['SRANDMEMBER', 's', '1', '2'], kSyntax],
    [['SPOP', 's', '0'], []],
    [['SPOP', 's', '-1'], kPositive],
    [['SPOP', 's', 'x'], kPositive],
    [['SPOP', 's', '1', '2'], kSyntax],
    [['SPOP', 's'], 'a'],
    [['EXISTS', 's'], 0],
    [['SADD', 's', 'a', 'b', 'c'], 3],
    [['SPOP', 's', '10'], ['a', 'b', 'c'], 'unordered'],
    [['EXISTS', 's'], 0],
  ],
  'WRONGTYPE against strings and hashes': [
    [['SET', 'str', 'v'], 'OK'],
    [['HSET', 'h', 'f', 'v'], 1],
    [['SADD', 's', 'a'], 1],
    [['SADD', 'str', 'a'], kWrongType],
    [['SREM', 'h', 'a'], kWrongType],
    [['SCARD', 'str'], kWrongType],
    [['SISMEMBER', 'h', 'a'], kWrongType],
    [['SMEMBERS', 'str'], kWrongType],
    [['SPOP', 'str'], kWrongType],
    [['SPOP', 'str', '0'], kWrongType],
    [['SRANDMEMBER', 'str', '2'], kWrongType],
    [['SINTER', 's', 'str'], kWrongType],
    [['SINTER', 'nokey', 'str'], kWrongType],
    [['SUNION', 's', 'h'], kWrongType],
    [['SDIFF', 'nokey', 'h'], kWrongType],
    [['SINTERSTORE', 'd', 's', 'str'], kWrongType],
    [['SINTERCARD', '2', 's', 'str'], kWrongType],
    [['SMOVE', 'str', 's', 'a'], kWrongType],
    [['SMOVE', 's', 'str', 'a'], kWrongType],
    [['SMOVE', 'nokey', 'str', 'a'], 0],
    [['SISMEMBER', 's', 'a'], 1],
    [['SSCAN', 'str', '0'], kWrongType],
    [['GET', 's'], kWrongType],
    [['HGET', 's', 'a'], kWrongType],
    [['SET', 's', 'x'], 'OK'],
    [['GET', 's'], 'x'],
    [['DEL', 's'], 1],
    [['SADD', 's', 'b'], 1],
    [['SMEMBERS', 's'], ['b']],
  ],
};

describe('set commands, one at a time', () => {
  for (const [name, rows] of Object.entries(tables)) it(name, () => runRows(target.port, rows, false));
});

describe('set commands, pipelined (one write)', () => {
  for (const [name, rows] of Object.entries(tables)) it(name, () => runRows(target.port, rows, true));
});

describe('sets: random members, scans, time', () => {
  it('SPOP and SRANDMEMBER return members of the set; SPOP drains it', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('DEL', 'r');
      const members = Array.from({ length: 100 }, (_, i) => `m${i}`);
      await c.call('SADD', 'r', ...members);
      const some = (await c.call('SRANDMEMBER', 'r', '20')) as string[];
      assert.equal(new Set(some).size, 20);
      assert.ok(some.every((m) => members.includes(m)));
      assert.equal(((await c.call('SRANDMEMBER', 'r', '-300')) as string[]).length, 300);
      const popped = new Set<string>();
      for (const m of (await c.call('SPOP', 'r', '30')) as string[]) popped.add(m);
      while (popped.size < 100) {
        const m = (await c.call('SPOP', 'r')) as string;
        assert.ok(!popped.has(m), `popped ${m} twice`);
        popped.add(m);
        if (popped.size === 60) assert.equal(await c.call('SCARD', 'r'), 40);
      }
      assert.equal(await c.call('EXISTS', 'r'), 0);
      assert.equal(await c.call('SPOP', 'r'), null);
    } finally {
      c.close();
    }
  });

  it('SSCAN pages through every member once; MATCH filters', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('DEL', 'big');
      await c.call('SADD', 'big', ...Array.from({ length: 250 }, (_, i) => `m${i}`));
      const seen: string[] = [];
      let cursor = '0';
      do {
        const [next, items] = (await c.call('SSCAN', 'big', cursor, 'COUNT', '30')) as [string, string[]];
        seen.push(...items);
        cursor = next;
      } while (cursor !== '0');
      assert.equal(seen.length, 250);
      assert.equal(new Set(seen).size, 250);
      const [, ones] = (await c.call('SSCAN', 'big', '0', 'MATCH', 'm1?', 'COUNT', '1000')) as [string, string[]];
      assert.deepEqual(ones.sort(), Array.from({ length: 10 }, (_, i) => `m1${i}`).sort());
    } finally {
      c.close();
    }
  });

  it('a set write on an expired key starts a fresh set', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('DEL', 'k', 'e');
      assert.equal(await c.call('SET', 'k', 'v', 'PX', '100'), 'OK');
      assert.equal(await c.call('SADD', 'e', 'a', 'b'), 2);
      const pexpire = await hasCommand(c, 'pexpire');
      if (pexpire) assert.equal(await c.call('PEXPIRE', 'e', '100'), 1);
      await sleep(250);
      assert.equal(await c.call('SADD', 'k', 'x'), 1);
      assert.deepEqual(await c.call('SMEMBERS', 'k'), ['x']);
      if (pexpire) {
        assert.equal(await c.call('SCARD', 'e'), 0);
        assert.deepEqual(await c.call('SINTER', 'e'), []);
        assert.equal(await c.call('SMOVE', 'e', 'k', 'a'), 0);
        assert.equal(await c.call('SADD', 'e', 'c'), 1);
        assert.deepEqual(await c.call('SMEMBERS', 'e'), ['c']);
      }
    } finally {
      c.close();
    }
  });

  it('RESP3: SMEMBERS, SINTER and SPOP with a count are sets; SRANDMEMBER an array', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('HELLO', '3');
      await c.call('DEL', 's3');
      await c.call('SADD', 's3', 'a');
      assert.deepEqual(await c.call('SMEMBERS', 's3'), { set: ['a'] });
      assert.deepEqual(await c.call('SINTER', 's3', 'nokey'), { set: [] });
      assert.deepEqual(await c.call('SRANDMEMBER', 's3', '2'), ['a']);
      assert.deepEqual(await c.call('SPOP', 'nokey', '2'), { set: [] });
      assert.deepEqual(await c.call('SPOP', 's3', '2'), { set: ['a'] });
      assert.equal(await c.call('SPOP', 's3'), null);
    } finally {
      c.close();
    }
  });
});
