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
  c.fill(0, op.key!, kString, value, 0, op.cacheVersion, op.cacheEpoch);
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
    for (let i = 0; i < 10; i++) get(c, `old:${i}`);
    assert.equal(get(c, 'new'), false);
    assert.equal(get(c, 'new'), false, 'first and second asks: not kept yet');
    for (let i = 0; i < 3; i++) get(c, 'new');
    assert.equal(get(c, 'new'), true);
    assert.ok(c.stats.evictions > 0);
    assert.ok(c.stats.entries <= 10);
  });

  it('resize shrinks to the new bound', () => {
    const c = new NearCache(table, 100 * (160 + 104), 64 * 1024);
    for (let i = 0; i < 100; i++) get(c, `k:${i}`);
    c.resize(10 * (160 + 104));
    assert.ok(c.stats.bytes <= 10 * (160 + 104));
    assert.ok(c.stats.entries > 0 && c.stats.entries <= 10);
  });
});
