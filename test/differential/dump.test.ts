/**
 * Differential: DUMP and RESTORE against redis-server 7.0.15, both directions, every type in the
 * encodings redis-server picks by size (int, raw and LZF strings; listpack and quicklist lists;
 * intsets and hash-table sets; listpack and hash-table hashes and zsets): a value DUMPed by one
 * server and RESTOREd by the other reads back the same (orders Redis leaves to its hash tables
 * compared sorted). Then the errors, byte for byte on the same payloads: checksum, version,
 * truncation, a corrupted body with a valid checksum, BUSYKEY, TTL, IDLETIME/FREQ, options,
 * and a TTL already past. Streams: ./dump-stream.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crc64 } from '../../core/engine/commands/dump/crc64';
import type { RawClient, Value } from '../e2e/resp-client';
import { serverPair } from './server-pair';

const many = (n: number, f: (i: number) => string[]) => Array.from({ length: n }, (_, i) => f(i)).flat();

/** key, the command that makes it, how to read it back (sorted: order left to a hash table) */
const kValues: [string, string[], string[], boolean][] = [
  ['str', ['SET', 'str', 'hello'], ['GET', 'str'], false],
  ['int', ['SET', 'int', '-123456'], ['GET', 'int'], false],
  ['int8', ['SET', 'int8', '7'], ['GET', 'int8'], false],
  ['lzf', ['SET', 'lzf', 'abcd'.repeat(300)], ['GET', 'lzf'], false],
  ['bin', ['SET', 'bin', '\x00\xff\r\n'.repeat(10)], ['GET', 'bin'], false],
  ['empty', ['SET', 'empty', ''], ['GET', 'empty'], false],
  ['list', ['RPUSH', 'list', 'a', '1', '-5', '70000', '-9223372036854775808', 'x'.repeat(70)], ['LRANGE', 'list', '0', '-1'], false],
  ['biglist', ['RPUSH', 'biglist', ...many(600, (i) => [i % 3 ? `e${i}` : String(i * 1000)])], ['LRANGE', 'biglist', '0', '-1'], false],
  ['intset', ['SADD', 'intset', '1', '-2', '300', '-70000', '5000000000'], ['SMEMBERS', 'intset'], true],
  ['set', ['SADD', 'set', 'a', 'b', 'c', '1'], ['SMEMBERS', 'set'], true],
  ['bigset', ['SADD', 'bigset', ...many(300, (i) => [`m${i}`])], ['SMEMBERS', 'bigset'], true],
  ['hash', ['HSET', 'hash', 'f', 'v', 'n', '12', 'e', ''], ['HGETALL', 'hash'], true],
  ['bighash', ['HSET', 'bighash', ...many(200, (i) => [`f${i}`, 'v'.repeat(i % 90)])], ['HGETALL', 'bighash'], true],
  ['zset', ['ZADD', 'zset', '1', 'a', '2.5', 'b', '-inf', 'c', '1e300', 'd', '-3', 'e'], ['ZRANGE', 'zset', '0', '-1', 'WITHSCORES'], false],
  ['bigzset', ['ZADD', 'bigzset', ...many(200, (i) => [String(i / 7), `m${i}`])], ['ZRANGE', 'bigzset', '0', '-1', 'WITHSCORES'], false],
];

const both = serverPair();

const bytes = (v: Value): Buffer => Buffer.from(v as string, 'latin1');
const norm = (v: Value, sorted: boolean): string => JSON.stringify(sorted && Array.isArray(v) ? [...v].map(String).sort() : v);

/** the same payload with its checksum made right again */
function resealed(body: Buffer): Buffer {
  return Buffer.concat([body, crc64(body)]);
}

describe('DUMP / RESTORE vs redis-server', () => {
  it('a value DUMPed by either server RESTOREs on the other, every type and encoding', async () => {
    const { r, p } = both;
    await Promise.all([r.call('FLUSHALL'), p.call('FLUSHALL')]);
    for (const [key, make, read, sorted] of kValues) {
      await Promise.all([r.call(...make), p.call(...make)]);
      const expected = norm(await r.call(...read), sorted);
      const fromRedis = bytes(await r.call('DUMP', key));
      const fromUs = bytes(await p.call('DUMP', key));
      const back = (cmd: string[]) => cmd.map((a) => (a === key ? `${key}:back` : a));
      assert.equal(await p.call('RESTORE', `${key}:back`, '0', fromRedis), 'OK', `${key}: redis-server's DUMP restored here`);
      assert.equal(norm(await p.call(...back(read)), sorted), expected, `${key}: read back here`);
      assert.equal(await r.call('RESTORE', `${key}:back`, '0', fromUs), 'OK', `${key}: our DUMP restored by redis-server`);
      assert.equal(norm(await r.call(...back(read)), sorted), expected, `${key}: read back by redis-server`);
      assert.equal(await p.call('TYPE', `${key}:back`), await r.call('TYPE', key), key);
    }
    assert.equal(await p.call('DUMP', 'nokey'), null);
  });

  it('refuses what redis-server refuses, with its errors, in its order', async () => {
    const { r, p } = both;
    await Promise.all([r.call('FLUSHALL'), p.call('FLUSHALL')]);
    await Promise.all([r.call('SET', 's', 'v'), p.call('SET', 's', 'v'), r.call('RPUSH', 'l', 'a', 'b')]);
    const good = bytes(await r.call('DUMP', 's'));
    const list = bytes(await r.call('DUMP', 'l'));
    const body = good.subarray(0, good.length - 8);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 1] ^= 1;
    const v11 = Buffer.from(body);
    v11[v11.length - 2] = 11;
    const cases: (string | Buffer)[][] = [
      ['RESTORE', 'k', '0', flipped], ['RESTORE', 'k', '0', resealed(v11)], ['RESTORE', 'k', '0', good.subarray(0, 9)],
      ['RESTORE', 'k', '0', good.subarray(1)], ['RESTORE', 'k', '0', ''],
      // valid checksums over broken bodies: unknown type, a length past the end, an empty list, a bad listpack
      ['RESTORE', 'k', '0', resealed(Buffer.from([99, 0, 10, 0]))], ['RESTORE', 'k', '0', resealed(Buffer.from([0, 50, 0x61, 10, 0]))],
      ['RESTORE', 'k', '0', resealed(Buffer.from([1, 0, 10, 0]))], ['RESTORE', 'k', '0', resealed(Buffer.from([0, 0xc3, 1, 5, 0x61, 10, 0]))],
      ['RESTORE', 'k', '0', resealed(Buffer.concat([Buffer.from([18, 1, 2, 7]), Buffer.from('1234567'), Buffer.from([10, 0])]))],
      ['RESTORE', 's', '0', good], ['RESTORE', 's', '0', flipped], ['RESTORE', 's', '-1', good], ['RESTORE', 's', 'x', good],
      ['RESTORE', 's', '0', good, 'REPLACE'], ['GET', 's'], ['RESTORE', 'k', '-1', good], ['RESTORE', 'k', 'x', flipped],
      ['RESTORE', 'k', '0', good, 'IDLETIME', '-1'], ['RESTORE', 'k', '0', good, 'FREQ', '256'], ['RESTORE', 'k', '0', good, 'FREQ', 'x'],
      ['RESTORE', 'k', '0', good, 'IDLETIME', '5', 'FREQ', '5'], ['RESTORE', 'k', '0', good, 'BOGUS'], ['RESTORE', 'k', '0', good, 'IDLETIME'],
      ['RESTORE', 'k', '0', good, 'FREQ', '255', 'REPLACE', 'ABSTTL'], ['GET', 'k'], ['TTL', 'k'],
      ['RESTORE', 'k', '100000', good, 'REPLACE'], ['TTL', 'k'], ['RESTORE', 'k', '4000000000000', good, 'REPLACE', 'ABSTTL'], ['TTL', 'k'],
      ['RESTORE', 'k', '1', good, 'REPLACE', 'ABSTTL'], ['EXISTS', 'k'], ['RESTORE', 'k', '1', good, 'ABSTTL'], ['EXISTS', 'k'],
      ['RESTORE', 'l2', '0', list], ['LRANGE', 'l2', '0', '-1'], ['RESTORE', 'l2', '0', list, 'REPLACE', 'IDLETIME', '1000'],
      ['RESTORE', 's', '0', list, 'REPLACE'], ['TYPE', 's'], ['RESTORE'], ['RESTORE', 'k', '0'], ['DUMP'], ['DUMP', 'a', 'b'],
    ];
    const failures: string[] = [];
    for (const c of cases) {
      const [a, b] = [await r.call(...c), await p.call(...c)];
      if (JSON.stringify(a) !== JSON.stringify(b)) {
        failures.push(`${c.map((x) => JSON.stringify(Buffer.from(x).toString('latin1').slice(0, 20))).join(' ')}: redis-server ${JSON.stringify(a)}, here ${JSON.stringify(b)}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});
