import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalInt, ListpackWriter } from './listpack-write';
import { listpackEntries } from './packed';

const lp = (els: Buffer[]): Buffer => {
  const w = new ListpackWriter();
  for (const e of els) w.element(e);
  return w.finish();
};

describe('ListpackWriter', () => {
  it('stores canonical integers as integers, in the smallest encoding (listpack.c)', () => {
    // [element, bytes of encoding + back-length]
    const cases: [string, number][] = [['0', 2], ['127', 2], ['128', 3], ['-1', 3], ['4095', 3], ['-4096', 3], ['4096', 4],
      ['-32768', 4], ['32768', 5], ['8388607', 5], ['8388608', 6], ['2147483648', 10], ['-9223372036854775808', 10],
      ['9223372036854775808', 21], ['012', 5], ['-0', 4], ['+1', 4], ['', 2]];
    for (const [s, n] of cases) {
      const b = lp([Buffer.from(s)]);
      assert.equal(b.length, 7 + n, s);
      assert.deepEqual(listpackEntries(b).map(String), [s], s);
    }
    assert.equal(canonicalInt(Buffer.from('9223372036854775807')), 9223372036854775807n);
    assert.equal(canonicalInt(Buffer.from(' 1')), undefined);
  });

  it('back-lengths at lpEncodeBacklen\'s bounds read back (entries of 127, 128, 16382, 16383, 16384 bytes)', () => {
    const sizes = [125, 126, 16377, 16378, 16379, 70000];
    const els = sizes.map((n) => Buffer.alloc(n, 0x61));
    assert.deepEqual(listpackEntries(lp(els)).map((e) => e.length), sizes);
  });

  it('writes 65535 as the count of 65535 elements or more, as Redis does', () => {
    const b = lp(Array.from({ length: 65536 }, () => Buffer.from('x')));
    assert.equal(b.readUInt16LE(4), 65535);
    assert.equal(listpackEntries(b).length, 65536);
  });
});
