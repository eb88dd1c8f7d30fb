import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { writeOrder } from './write-order';

/** The obvious version: the last write of each (db, key), sorted by db then Buffer.compare. */
function reference(dbs: number[], keys: Buffer[]): number[] {
  const last = new Map<string, number>();
  keys.forEach((k, i) => last.set(`${dbs[i]}:${k.toString('hex')}`, i));
  return [...last.values()].sort((a, b) => dbs[a] - dbs[b] || Buffer.compare(keys[a], keys[b]));
}

// keys built from few distinct bytes and a shared prefix, so ties, prefixes of other keys, NUL
// bytes and duplicates all happen
const keyArb = fc.tuple(fc.constantFrom('', 'key:', 'key:0000000'), fc.uint8Array({ maxLength: 9 })
  .map((a) => a.map((b) => [0, 1, 48, 49, 255][b % 5])))
  .map(([p, tail]) => Buffer.concat([Buffer.from(p), Buffer.from(tail)]));

describe('writeOrder', () => {
  it('equals the reference order and keeps the last write of each key (fast-check)', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom(0, 0, 0, 1, 3), keyArb), { maxLength: 300 }), (rows) => {
      const dbs = rows.map((r) => r[0]);
      const keys = rows.map((r) => r[1]);
      assert.deepEqual(writeOrder(dbs, keys), reference(dbs, keys));
    }), { numRuns: 500, seed: 7 });
  });

  it('single-db runs of redis-benchmark style keys, with repeats', () => {
    const keys: Buffer[] = [];
    for (let i = 0; i < 256; i++) keys.push(Buffer.from(`key:${String((i * 7919) % 300).padStart(12, '0')}`));
    const dbs = keys.map(() => 0);
    assert.deepEqual(writeOrder(dbs, keys), reference(dbs, keys));
  });

  it('runs over 8,192 rows take the plain sort and agree', () => {
    const keys: Buffer[] = [];
    for (let i = 0; i < 9000; i++) keys.push(Buffer.from(`k${(i * 104729) % 7000}`));
    const dbs = keys.map(() => 2);
    assert.deepEqual(writeOrder(dbs, keys), reference(dbs, keys));
  });
});
