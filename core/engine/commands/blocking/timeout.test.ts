/** parseTimeout against what redis-server 7.0.15 answered for each input (BLPOP nokey <t>). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kTimeoutNegative, kTimeoutNotFloat, parseTimeout } from './timeout';

const cases: [string, number | 'float' | 'negative'][] = [
  ['0', 0], ['-0', 0], ['-0.0001', 0], ['-1e-400', 0], ['1', 1000], ['0.1', 100], ['0.0001', 1], ['1e-400', 1],
  ['1e-4940', 1], ['1.5e3', 1_500_000], ['+1', 1000], ['.5', 500], ['5.', 5000], ['0x10', 16_000], ['0x1p3', 8000],
  ['9.2e15', 9.2e18],
  ['abc', 'float'], ['', 'float'], [' 1', 'float'], ['1 ', 'float'], ['1e', 'float'], ['0x', 'float'], ['nan', 'float'],
  ['1.2e4932', 'float'], ['1e5000', 'float'], ['1e-5000', 'float'], ['1e-4960', 'float'],
  ['-1', 'negative'], ['inf', 'negative'], ['infinity', 'negative'], ['-inf', 'negative'], ['1e16', 'negative'],
  ['9.3e15', 'negative'], ['1e400', 'negative'], ['1e4932', 'negative'], ['9223372036854775807', 'negative'],
];

describe('parseTimeout', () => {
  for (const [text, want] of cases) {
    it(`${JSON.stringify(text)} → ${want}`, () => {
      const got = parseTimeout(Buffer.from(text));
      if (want === 'float') assert.equal(got, kTimeoutNotFloat);
      else if (want === 'negative') assert.equal(got, kTimeoutNegative);
      else assert.equal(got, want);
    });
  }
});
