// compactWire: what a frame's structured clone copies (core/bus/messages.ts)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compactWire, type WireItems } from './messages';

test('compactWire: views into a 16 KiB slab become views into one ArrayBuffer of their total size', () => {
  const slab = Buffer.alloc(16 * 1024, 0x2e);
  slab.write('news', 100);
  slab.write('hello', 2000);
  const big = Buffer.alloc(100 * 1024, 0x62); // a whole ArrayBuffer over 64 KiB: sent as it is
  const items: WireItems = ['m', 0, slab.subarray(100, 104), slab.subarray(2000, 2005), 'w', 3, slab.subarray(100, 104), Buffer.alloc(0),
    'm', 0, slab.subarray(100, 104), big];
  const out = compactWire(items);
  assert.equal(out, items);
  const views = [out[2], out[3], out[6], out[7], out[10]] as Uint8Array[];
  assert.deepEqual(views.map((u) => Buffer.from(u).toString()), ['news', 'hello', 'news', '', 'news']);
  for (const u of views) assert.equal(u.buffer.byteLength, 4 + 5 + 4 + 4);
  assert.equal(out[11], big);
  // the slab is not touched, and a frame with nothing to pack is left alone
  assert.equal(slab.subarray(100, 104).toString(), 'news');
  const empty: WireItems = ['w', 0, Buffer.alloc(0), Buffer.alloc(0)];
  assert.equal(compactWire(empty)[2], empty[2]);
});

test('a compacted frame clones to about its bytes, not to the slab under them', () => {
  const slab = Buffer.alloc(16 * 1024);
  const items: WireItems = ['m', 0, slab.subarray(0, 3), slab.subarray(10, 1034)];
  const before = structuredClone(items) as WireItems;
  assert.equal((before[3] as Uint8Array).buffer.byteLength, 16 * 1024);
  const after = structuredClone(compactWire(items)) as WireItems;
  assert.equal((after[3] as Uint8Array).buffer.byteLength, 1027);
});
