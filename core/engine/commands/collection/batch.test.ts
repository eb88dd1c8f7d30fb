import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sameKey } from './batch';

const k = (db: number, key: string | Buffer) => ({ db, key: Buffer.isBuffer(key) ? key : Buffer.from(key) });

describe('sameKey (which ops of a batch join one run)', () => {
  it('equal db and bytes, short (compared in JS) and long (Buffer.equals)', () => {
    assert.equal(sameKey(k(0, 'mylist'), k(0, 'mylist')), true);
    assert.equal(sameKey(k(0, ''), k(0, '')), true);
    const long = 'x'.repeat(40);
    assert.equal(sameKey(k(0, long), k(0, long)), true);
  });
  it('a different db, length or byte is another key', () => {
    assert.equal(sameKey(k(0, 'mylist'), k(1, 'mylist')), false);
    assert.equal(sameKey(k(0, 'mylist'), k(0, 'mylis')), false);
    assert.equal(sameKey(k(0, 'mylist'), k(0, 'mylisT')), false);
    assert.equal(sameKey(k(0, 'x'.repeat(40)), k(0, 'x'.repeat(39) + 'y')), false);
    assert.equal(sameKey(k(0, Buffer.from([0xff, 0])), k(0, Buffer.from([0xff, 1]))), false);
  });
  it('views into one buffer compare by content, not by offset', () => {
    const slab = Buffer.from('abcabc');
    assert.equal(sameKey(k(0, slab.subarray(0, 3)), k(0, slab.subarray(3, 6))), true);
  });
});
