/** SCAN cursors and MATCH key ranges: pure functions, no server. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RespError } from '../../reply';
import { globPrefix, prefixEnd } from './glob-range';
import { decodeCursor, encodeCursor } from './scan-cursor';
import { sizeClass, stringUsage } from './memory';

describe('scan cursors', () => {
  it('round-trip any key, binary and empty included, as digits only', () => {
    for (const k of [Buffer.alloc(0), Buffer.from('ab'), Buffer.from([0, 255, 13, 10]), Buffer.alloc(300, 7)]) {
      const c = encodeCursor(k);
      assert.match(c, /^[0-9]+$/);
      assert.notEqual(c, '0');
      assert.deepEqual(decodeCursor(Buffer.from(c)), k);
    }
    assert.equal(encodeCursor(Buffer.from('ab')), '1097098');
  });

  it('start at 0 or at an integer that is not ours; refuse what Redis refuses', () => {
    for (const c of ['0', '+0', '7', '12', '1999', '00']) assert.equal(decodeCursor(Buffer.from(c)), null, c);
    for (const c of ['', 'x', ' 1', '1 ', '-', '1.0']) assert.ok(decodeCursor(Buffer.from(c)) instanceof RespError, c);
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
