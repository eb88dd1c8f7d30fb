import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kBypassStride, NearCache } from './near-cache';
import { VersionTable, newVersionBuffer } from './version-table';
import { CacheArena, newCacheArena, type BulkSink } from './arena';
import { kAbsent, ReadOp } from '../ops';
import { kNoReply } from '../reply';
import { ReplyWriter } from '../../../protocol/writer';

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

describe('NearCache: a GET hit written straight into the reply writer (ReadOp.sink)', () => {
  const reply = (type: number, v: Buffer | null) => (type === kString ? v : type === kAbsent ? null : 'WRONGTYPE');
  function warm(c: NearCache, key: string, type: number, value: Buffer | null): void {
    for (let i = 0; i < 3; i++) {
      const op = new ReadOp(0, Buffer.from(key), null, reply);
      if (!c.serve(op) && op.cache !== null) c.fill(0, op.key!, type, value, 0, op.cacheVersion, op.cacheEpoch);
    }
  }
  function getInto(c: NearCache, key: string, w: BulkSink): ReadOp {
    const op = new ReadOp(0, Buffer.from(key), null, reply);
    op.sink = w;
    c.serve(op);
    return op;
  }

  it('a string hit is one bulk reply in the writer, the op settled with kNoReply; other hits reply as before', () => {
    const c = cacheOf(1 << 20);
    warm(c, 'direct', kString, Buffer.from('abc'));
    warm(c, 'nothing', kAbsent, null);
    warm(c, 'alist', 2, null);
    const big = Buffer.alloc(20_000, 'b');
    warm(c, 'big', kString, big);
    const w = new ReplyWriter();
    w.simple('before');
    const h0 = c.stats.hits;
    const op = getInto(c, 'direct', w);
    assert.equal(op.done, true);
    assert.equal(op.value, kNoReply);
    assert.equal(Buffer.concat(w.take()).toString(), '+before\r\n$3\r\nabc\r\n');
    // nil, WRONGTYPE and a value sent by reference (16 KB or more) are replies as before: nothing written
    assert.equal(getInto(c, 'nothing', w).value, null);
    assert.equal(getInto(c, 'alist', w).value, 'WRONGTYPE');
    assert.deepEqual(getInto(c, 'big', w).value, big);
    assert.equal(w.length, 0);
    assert.equal(c.stats.hits, h0 + 4);
    // a miss writes nothing and is tagged for its fill as before
    const miss = getInto(c, 'absent-from-cache', w);
    assert.equal(miss.done, false);
    assert.equal(w.length, 0);
  });

  it('a value whose bytes another worker reuses during the copy is a miss: the copy is taken back out', () => {
    const sab = newCacheArena(1 << 16);
    const c = new NearCache(table, new CacheArena(sab, 1), 64 * 1024);
    // the other worker of the process: its fills wrap the small ring over the entry
    const other = new CacheArena(sab, 2);
    warm(c, 'victim', kString, Buffer.alloc(1000, 'v'));
    const w = new ReplyWriter();
    w.integer(1);
    let interfered = 0;
    const racing: BulkSink = {
      bulkFrom(src, from, n) {
        const mark = w.bulkFrom(src, from, n);
        // between the copy and the check after it
        for (let i = 0; i < 200; i++) other.insert(table.hash(0, Buffer.from(`o:${i}`)), 0, Buffer.from(`o:${i}`), kString, Buffer.alloc(1000, i & 255), 0, 0, table.epoch, null);
        interfered++;
        return mark;
      },
      unwrite: (mark) => w.unwrite(mark),
    };
    const torn = c.stats.torn;
    const op = getInto(c, 'victim', racing);
    assert.equal(interfered, 1, 'the hit was being copied');
    assert.equal(op.done, false, 'not answered: the read goes to Postgres');
    assert.equal(c.stats.torn, torn + 1);
    assert.equal(Buffer.concat(w.take()).toString(), ':1\r\n', 'nothing of the torn copy left in the writer');
  });
});
