/** strtod as Redis's score and range arguments use it (glibc, C locale). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cStrtod, string2d } from './strtod';
import { nextDown, nextUp, parseLexRange, parseScoreRange } from '../zset/bounds';

const b = (s: string) => Buffer.from(s, 'latin1');

describe('string2d (ZADD scores, WEIGHTS)', () => {
  it('accepts what strtod parses in full', () => {
    const ok: [string, number][] = [['1', 1], ['-1.5', -1.5], ['1e3', 1000], ['.5', 0.5], ['7.', 7], ['inf', Infinity],
      ['-Infinity', -Infinity], ['+inf', Infinity], ['0x10', 16], ['0x1.8p1', 3], ['-0x.8', -0.5], ['1e-320', 1e-320],
      ['4e-320', 4e-320], ['1.7976931348623157e308', Number.MAX_VALUE]];
    for (const [s, v] of ok) assert.equal(string2d(b(s)), v, s);
    assert.ok(Object.is(string2d(b('-0')), -0));
  });

  it('refuses spaces, leftovers, NaN, overflow and underflow to 0', () => {
    for (const s of ['', ' 1', '1 ', 'nan', 'NaN(1)', '1e', '0x', '0xp1', 'abc', '1e400', '-1e400', '1e-400', '1\x00', 'infinit', '--1'])
      assert.equal(string2d(b(s)), undefined, JSON.stringify(s));
  });

  it('rounds hex floats to nearest, ties to even', () => {
    assert.equal(string2d(b('0x1.00000000000008p0')), 1); // exactly half an ulp above 1: even
    assert.equal(string2d(b('0x1.00000000000018p0')), 1 + 2 * 2 ** -52);
    assert.equal(string2d(b('0x1p-1074')), 5e-324);
    assert.equal(string2d(b('0x1p1024')), undefined);
  });
});

describe('score and lex ranges', () => {
  it('reads bounds like zslParseRange (space and "" allowed, NUL ends the argument)', () => {
    assert.equal(cStrtod(b(' 1')), 1);
    assert.equal(cStrtod(b('')), 0);
    assert.equal(cStrtod(b('2\x00junk')), 2);
    assert.equal(cStrtod(b('1e400')), Infinity);
    assert.equal(cStrtod(b('x')), undefined);
    assert.deepEqual(parseScoreRange(b('(1'), b('(2')), { lo: nextUp(1), hi: nextDown(2) });
    assert.deepEqual(parseScoreRange(b('(+inf'), b('+inf')), { lo: Infinity, hi: -Infinity });
    assert.deepEqual(parseScoreRange(b('-inf'), b('(-inf')), { lo: Infinity, hi: -Infinity });
    assert.equal(nextUp(0), Number.MIN_VALUE);
    assert.equal(nextDown(1), 1 - 2 ** -53);
  });

  it('turns lex bounds into [lo, hi) with the next string for exclusive lows and inclusive highs', () => {
    assert.deepEqual(parseLexRange(b('[a'), b('(c')), { lo: b('a'), hi: b('c') });
    assert.deepEqual(parseLexRange(b('(a'), b('[c')), { lo: b('a\x00'), hi: b('c\x00') });
    assert.deepEqual(parseLexRange(b('-'), b('+')), { lo: b(''), hi: null });
    assert.deepEqual(parseLexRange(b('+'), b('+')), { lo: b(''), hi: b('') });
    for (const [x, y] of [['a', '+'], ['-x', '+'], ['', '+']]) assert.ok(!('lo' in (parseLexRange(b(x), b(y)) as object)), x);
  });
});
