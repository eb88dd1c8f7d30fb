/** SCAN cursors and MATCH key ranges: pure functions, no server. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RespError } from '../../reply';
import { globPrefix, prefixEnd } from './glob-range';
import { decodeCursor, encodeCursor } from './scan-cursor';
import { sizeClass, stringUsage } from './memory';

describe('scan cursors', () => {
  const kMin = -(1n << 63n);
  const kMax = (1n << 63n) - 1n;

  it('are unsigned 64-bit decimals: hash + 2^63, the next position after a page', () => {
    assert.equal(decodeCursor(Buffer.from('0')), kMin);
    assert.equal(encodeCursor(kMin), '1');
    assert.equal(encodeCursor(-1n), '9223372036854775808');
    assert.equal(encodeCursor(kMax - 1n), '18446744073709551615');
    assert.equal(encodeCursor(kMax), '0'); // nothing after the last hash: the iteration ends
    for (const h of [kMin, -123456789n, -1n, 0n, 987654321987n, kMax - 1n]) {
      const c = encodeCursor(h);
      assert.match(c, /^[1-9][0-9]{0,19}$/);
      assert.ok(BigInt(c) <= 2n ** 64n - 1n);
      assert.equal(decodeCursor(Buffer.from(c)), h + 1n, c);
    }
  });

  it('accept and refuse what redis-server 7.0 does (strtoul)', () => {
    // accepted, with the position strtoul gives: a sign, leading zeros, "" (= 0), up to 2^64-1
    const ok: [string, bigint][] = [['0', 0n], ['+0', 0n], ['-0', 0n], ['', 0n], ['00012', 12n], ['+5', 5n],
      ['-1', 2n ** 64n - 1n], ['18446744073709551615', 2n ** 64n - 1n], ['-18446744073709551615', 1n]];
    for (const [c, pos] of ok) assert.equal(decodeCursor(Buffer.from(c)), pos + kMin, c);
    for (const c of ['x', 'abc', ' 1', '1 ', '-', '+', '1.0', '0x10', '18446744073709551616', '-18446744073709551616',
      '99999999999999999999999']) {
      const r = decodeCursor(Buffer.from(c));
      assert.ok(r instanceof RespError, c);
      assert.equal(r.toString(), new RespError('ERR invalid cursor').toString());
    }
  });
});

describe('glob key ranges', () => {
  it('take the literal prefix, escapes read as literals', () => {
    assert.equal(globPrefix(Buffer.from('user:*')).toString(), 'user:');
    assert.equal(globPrefix(Buffer.from('a\\*b?')).toString(), 'a*b');
    assert.equal(globPrefix(Buffer.from('[ab]*')).length, 0);
    assert.equal(globPrefix(Buffer.from('ab\\')).toString(), 'ab');
  });

  it('end just after every key with the prefix', () => {
    assert.deepEqual(prefixEnd(Buffer.from('ab')), Buffer.from('ac'));
    assert.deepEqual(prefixEnd(Buffer.from([1, 255, 255])), Buffer.from([2]));
    assert.equal(prefixEnd(Buffer.from([255])), undefined);
    assert.equal(prefixEnd(Buffer.alloc(0)), undefined);
  });
});

describe('MEMORY USAGE estimate', () => {
  it('matches redis-server 7.0 for int, embstr and raw strings', () => {
    assert.deepEqual([8, 16, 32, 128, 160, 320].map(sizeClass), [8, 16, 32, 128, 160, 320]);
    assert.equal(stringUsage(3, 3, false), 64); // SET foo bar
    assert.equal(stringUsage(2, 3, true), 48); // SET ia 123
    assert.equal(stringUsage(3, 44, false), 96);
    assert.equal(stringUsage(3, 45, false), 112);
    assert.equal(stringUsage(38, 1, false), 104);
  });
});
