import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NearCache } from './near-cache';
import { VersionTable, newVersionBuffer } from './version-table';
import { ReadOp } from '../ops';

const kString = 0;
const table = new VersionTable(newVersionBuffer(1 << 16));

/** one GET through the cache: served (true) or missed and filled as the read run would (false) */
function get(c: NearCache, key: string, value = Buffer.alloc(100, 'v')): boolean {
  const op = new ReadOp(0, Buffer.from(key), null, (_type, v) => v);
  if (c.serve(op)) return true;
  if (op.cache !== null) c.fill(0, op.key!, kString, value, 0, op.cacheVersion, op.cacheEpoch);
  return false;
}

describe('NearCache admission and eviction', () => {
  it('a cold scan larger than the cache leaves the hot keys in it', () => {
    const c = new NearCache(table, 50 * (160 + 104), 64 * 1024);
    for (let r = 0; r < 5; r++) for (let i = 0; i < 20; i++) get(c, `hot:${i}`);
    // each cold key twice: a doorkeeper (admit on the second miss) let them all in
    for (let r = 0; r < 2; r++) for (let i = 0; i < 3000; i++) get(c, `cold:${i}`);
    let hits = 0;
    for (let i = 0; i < 20; i++) if (get(c, `hot:${i}`)) hits++;
    assert.equal(hits, 20);
    assert.ok(c.stats.rejected > 5000, `cold misses not kept: ${c.stats.rejected}`);
    assert.ok(c.stats.bytes <= c.maxBytes);
  });

  it('a key asked for more often than the victim replaces it once the cache is full', () => {
    const c = new NearCache(table, 10 * (160 + 104), 64 * 1024);
    for (let r = 0; r < 2; r++) for (let i = 0; i < 10; i++) get(c, `old:${i}`);
    assert.equal(get(c, 'new'), false);
    assert.equal(get(c, 'new'), false, 'first and second asks: not kept yet');
    for (let i = 0; i < 3; i++) get(c, 'new');
    assert.equal(get(c, 'new'), true);
    assert.ok(c.stats.evictions > 0);
    assert.ok(c.stats.entries <= 10);
  });

  it('resize shrinks to the new bound', () => {
    const c = new NearCache(table, 100 * (160 + 104), 64 * 1024);
    for (let r = 0; r < 2; r++) for (let i = 0; i < 100; i++) get(c, `k:${i}`);
    c.resize(10 * (160 + 104));
    assert.ok(c.stats.bytes <= 10 * (160 + 104));
    assert.ok(c.stats.entries > 0 && c.stats.entries <= 10);
  });

  it('a key is filled on its second miss, not its first: a one-off read is not tagged (no fill, no copy)', () => {
    const c = new NearCache(table, 1 << 20, 64 * 1024);
    const op = new ReadOp(0, Buffer.from('once:1'), null, (_type, v) => v);
    assert.equal(c.serve(op), false);
    assert.equal(op.cache, null, 'first miss: not tagged');
    assert.equal(get(c, 'once:1'), false, 'second miss: tagged and filled');
    assert.equal(get(c, 'once:1'), true);
    assert.equal(c.stats.fills, 1);
  });

  it('a uniform keyspace over a full cache tags few misses for a fill', () => {
    const c = new NearCache(table, 200 * (160 + 104), 64 * 1024);
    let tagged = 0;
    let misses = 0;
    for (let r = 0; r < 6; r++) {
      for (let i = 0; i < 2000; i++) {
        const op = new ReadOp(0, Buffer.from(`u:${i}`), null, (_type, v) => v);
        if (c.serve(op)) continue;
        misses++;
        if (op.cache === null) continue;
        tagged++;
        c.fill(0, op.key!, kString, Buffer.alloc(100, 'v'), 0, op.cacheVersion, op.cacheEpoch);
      }
    }
    assert.ok(tagged < misses / 10, `${tagged} of ${misses} misses tagged`);
    assert.ok(c.stats.bytes <= c.maxBytes);
  });
});
