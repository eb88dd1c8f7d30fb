/**
 * Differential: which SMOVEs by another client abort a WATCHing client's EXEC, against
 * redis-server 7.0. Redis touches only the keys SMOVE changed: the destination that already
 * holds the member is unchanged and a WATCH on it holds (the Redis suite's "SMOVE only notify
 * dstset when the addition is successful").
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient, type Value } from '../e2e/resp-client';
import { Oracle } from './oracle';

/** [watched key, SMOVE arguments] on src {a, b} and dst {a} */
const kCases: [string, string[]][] = [
  ['dst', ['src', 'dst', 'a']], // a already in dst: dst unchanged
  ['dst', ['src', 'dst', 'b']], // b added to dst
  ['dst', ['src', 'dst', 'x']], // not in src: nothing moves
  ['src', ['src', 'dst', 'a']], // removed from src
  ['src', ['src', 'src', 'a']], // same key: nothing changes
  ['dst', ['nokey', 'dst', 'a']],
  ['new', ['src', 'new', 'a']], // creates the destination
];

async function run(port: number, watched: string, smove: string[]): Promise<Value[]> {
  const [a, b] = await Promise.all([RawClient.connect(port), RawClient.connect(port)]);
  try {
    await a.call('FLUSHALL');
    await a.call('SADD', 'src', 'a', 'b');
    await a.call('SADD', 'dst', 'a');
    const out: Value[] = [await a.call('WATCH', watched), await a.call('MULTI'), await a.call('SADD', 'other', 'c')];
    out.push(await b.call('SMOVE', ...smove), await a.call('EXEC'), await a.call('SMEMBERS', 'dst'));
    return out;
  } finally {
    a.close();
    b.close();
  }
}

describe('SMOVE and WATCH, as redis-server', () => {
  let oracle: Oracle;
  before(async () => { oracle = await Oracle.start(); });
  after(async () => { await oracle?.stop(); });

  for (const [watched, smove] of kCases) {
    it(`WATCH ${watched}, another client SMOVE ${smove.join(' ')}`, async () => {
      const theirs = await run(oracle.redis.port, watched, smove);
      const mine = await run(oracle.postresp.port, watched, smove);
      const sorted = (r: Value[]) => r.map((v) => (Array.isArray(v) ? [...v].sort() : v));
      assert.deepEqual(sorted(mine), sorted(theirs));
    });
  }
});
