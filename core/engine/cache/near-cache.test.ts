import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kBypassStride, NearCache } from './near-cache';
import { VersionTable, newVersionBuffer } from './version-table';
import { CacheArena, newCacheArena } from './arena';
import { ReadOp } from '../ops';

const kString = 0;
const table = new VersionTable(newVersionBuffer(1 << 16));
/** what one test entry takes in the arena: 40 header bytes, a key of up to 8 and 100 value bytes, 8-aligned */
const kEntry = 152;

/** a cache whose arena holds at most `bytes` (the arena is made larger: it has a 64 KB floor) */
function cacheOf(bytes: number): NearCache {
  const arena = new CacheArena(newCacheArena(Math.max(bytes * 2, 1 << 20)), 1);
  arena.setLimit(bytes);
  return new NearCache(table, arena, 64 * 1024);
}

/** one GET through the cache: served (true) or missed and filled as the read run would (false) */
function get(c: NearCache, key: string, value = Buffer.alloc(100, 'v')): boolean {
  const op = new ReadOp(0, Buffer.from(key), null, (_type, v) => v);
  if (c.serve(op)) return true;
  if (op.cache !== null) c.fill(0, op.key!, kString, value, 0, op.cacheVersion, op.cacheEpoch);
  return false;
}

describe('NearCache admission and eviction', () => {
  it('a cold scan larger than the cache leaves the hot keys in it', () => {
    const c = cacheOf(50 * kEntry);
    for (let r = 0; r < 5; r++) for (let i = 0; i < 20; i++) get(c, `hot:${i}`);
    // each cold key twice: a doorkeeper (admit on the second miss) let them all in
    for (let r = 0; r < 2; r++) for (let i = 0; i < 3000; i++) get(c, `cold:${i}`);
    let hits = 0;
    for (let i = 0; i < 20; i++) if (get(c, `hot:${i}`)) hits++;
    assert.equal(hits, 20);
    assert.ok(c.stats.rejected > 5000, `cold misses not kept: ${c.stats.rejected}`);
    assert.ok(c.snapshot().bytes <= c.maxBytes);
  });

  it('a key asked for more often than the victim replaces it once the cache is full', () => {
    const c = cacheOf(10 * kEntry);
    for (let r = 0; r < 2; r++) for (let i = 0; i < 10; i++) get(c, `old:${i}`);
    assert.equal(get(c, 'new'), false);
    assert.equal(get(c, 'new'), false, 'first and second asks: not kept yet');
    for (let i = 0; i < 3; i++) get(c, 'new');
    assert.equal(get(c, 'new'), true);
    assert.ok(c.snapshot().evictions > 0);
    assert.ok(c.snapshot().entries <= 10);
  });

  it('resize shrinks to the new bound', () => {
    const c = cacheOf(100 * kEntry);
    for (let r = 0; r < 2; r++) for (let i = 0; i < 100; i++) get(c, `k:${i}`);
    c.resize(10 * kEntry);
    const s = c.snapshot();
    assert.ok(s.bytes <= 10 * kEntry, `${s.bytes} bytes`);
    assert.ok(s.entries > 0 && s.entries <= 10);
  });

  it('a key is filled on its second miss, not its first: a one-off read is not tagged (no fill, no copy)', () => {
    const c = cacheOf(1 << 20);
    const op = new ReadOp(0, Buffer.from('once:1'), null, (_type, v) => v);
    assert.equal(c.serve(op), false);
    assert.equal(op.cache, null, 'first miss: not tagged');
    assert.equal(get(c, 'once:1'), false, 'second miss: tagged and filled');
    assert.equal(get(c, 'once:1'), true);
    assert.equal(c.stats.fills, 1);
  });

  it('a uniform keyspace over a full cache tags few misses for a fill', () => {
    const c = cacheOf(200 * kEntry);
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
    assert.ok(c.snapshot().bytes <= c.maxBytes);
  });
});

describe('NearCache bypass (a worker whose lookups seldom hit stops paying for them)', () => {
  it('a uniform keyspace far larger than the cache: after a window, 7 ops in 8 skip the lookup', () => {
    const c = cacheOf(200 * kEntry);
    for (let i = 0; i < 40_000; i++) get(c, `wide:${i}`);
    assert.equal(c.bypass, true, `hit ratio ${c.stats.hits} of ${c.stats.hits + c.stats.misses}`);
    const before = { ...c.stats };
    for (let i = 0; i < 8_000; i++) get(c, `wide2:${i}`);
    const skipped = c.stats.bypassed - before.bypassed;
    assert.equal(skipped, 8_000 - 8_000 / kBypassStride, 'one op in kBypassStride still looked up');
    assert.equal(c.stats.misses - before.misses, 8_000 / kBypassStride);
  });

  it('a hot keyspace never enters bypass, and a sampled window that hits ends it', () => {
    const c = cacheOf(1 << 20);
    for (let i = 0; i < 40_000; i++) get(c, `hot:${i % 100}`);
    assert.equal(c.bypass, false);
    c.bypass = true;
    const h0 = c.stats.hits;
    for (let i = 0; i < 40_000 && c.bypass; i++) get(c, `hot:${i % 100}`);
    assert.equal(c.bypass, false, 'sampled lookups hit: back to every op');
    assert.ok(c.stats.hits > h0);
    assert.equal(get(c, 'hot:1'), true);
  });
});
