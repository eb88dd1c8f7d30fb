import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kReadScratch, kReadSlabSize, kSharedReadMax, keepRead } from './read-slab';

function read(text: string): Buffer {
  const n = kReadScratch.write(text, 'latin1');
  return keepRead(n);
}

describe('read slab', () => {
  it('keeps each read intact while later reads reuse the scratch buffer', () => {
    const kept: [string, Buffer][] = [];
    // enough small reads to fill several slabs, sizes on both sides of the byte-loop cut (64)
    for (let i = 0; kept.length < 3 * kReadSlabSize / 50; i++) {
      const text = `*1\r\n$${i}\r\n`.padEnd(10 + (i % 120), String.fromCharCode(97 + (i % 26)));
      kept.push([text, read(text)]);
    }
    for (const [text, buf] of kept) assert.equal(buf.toString('latin1'), text);
  });

  it('a large read gets a buffer of its own; small ones share a slab', () => {
    const big = read('x'.repeat(kSharedReadMax));
    const a = read('abc');
    const b2 = read('def');
    assert.equal(big.length, kSharedReadMax);
    assert.notEqual(big.buffer, a.buffer);
    assert.equal(a.buffer, b2.buffer);
    assert.equal(b2.byteOffset, a.byteOffset + 3);
    read('z'.repeat(kSharedReadMax + 1));
    assert.equal(a.toString() + b2.toString(), 'abcdef');
  });
});
