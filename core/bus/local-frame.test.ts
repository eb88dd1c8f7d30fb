// The packed frame between workers (core/bus/local-frame.ts): what goes in comes out, in order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ItemKind } from './codec';
import { forEachPacked, packItems } from './local-frame';
import type { WireItems } from './messages';

test('packItems / forEachPacked: kinds, dbs, binary, empty and 1 MB values, in order, through a structured clone', () => {
  const slab = Buffer.alloc(16 * 1024, 0x2e);
  slab.write('news', 100);
  const bin = Buffer.from([0, 255, 13, 10, 0x80]);
  const big = Buffer.alloc(1 << 20, 0x62);
  const items: WireItems = ['m', 0, slab.subarray(100, 104), Buffer.from('hello'), 's', 0, bin, Buffer.alloc(0),
    'w', 15, Buffer.from('list'), Buffer.alloc(0), 'm', 0, Buffer.alloc(0), big, 'w', -1, bin, Buffer.alloc(0)];
  const packed = packItems(items);
  // one ArrayBuffer of exactly the frame's size: the clone copies no slab
  assert.equal(packed.buffer.byteLength, packed.byteLength);
  assert.equal(packed.byteLength, 5 * 13 + 4 + 5 + 5 + 4 + (1 << 20) + 5);
  const got: [ItemKind, number, Buffer, Buffer, number][] = [];
  forEachPacked(structuredClone(packed), (kind, db, a, c, i) => got.push([kind, db, Buffer.from(a), Buffer.from(c), i]));
  assert.deepEqual(got.map((g) => [g[0], g[1], g[4]]), [['m', 0, 0], ['s', 0, 1], ['w', 15, 2], ['m', 0, 3], ['w', -1, 4]]);
  assert.equal(got[0]![2].toString(), 'news');
  assert.equal(got[0]![3].toString(), 'hello');
  assert.deepEqual(got[1]![2], bin);
  assert.equal(got[1]![3].length, 0);
  assert.equal(got[2]![2].toString(), 'list');
  assert.equal(got[3]![2].length, 0);
  assert.ok(got[3]![3].equals(big));
  assert.deepEqual(got[4]![2], bin);
  assert.equal(slab.subarray(100, 104).toString(), 'news'); // the slab is read, not touched
});

test('an empty frame has no items', () => {
  let n = 0;
  forEachPacked(packItems([]), () => n++);
  assert.equal(n, 0);
});
