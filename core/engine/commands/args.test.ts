import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eqIgnoreCase, parseI64, parseInt53 } from './args';

describe('parseI64 follows Redis string2ll', () => {
  const ok: [string, bigint][] = [['0', 0n], ['-1', -1n], ['123', 123n], ['9223372036854775807', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n]];
  for (const [s, v] of ok) it(`accepts ${s}`, () => assert.equal(parseI64(Buffer.from(s)), v));
  const bad = ['', '-', '+1', '01', '-0', ' 1', '1 ', '1.5', '9223372036854775808', '-9223372036854775809', 'abc', '1e3'];
  for (const s of bad) it(`refuses ${JSON.stringify(s)}`, () => assert.equal(parseI64(Buffer.from(s)), undefined));
  it('parseInt53 refuses beyond 2^53', () => {
    assert.equal(parseInt53(Buffer.from('9007199254740993')), undefined);
    assert.equal(parseInt53(Buffer.from('42')), 42);
  });
  it('eqIgnoreCase', () => {
    assert.ok(eqIgnoreCase(Buffer.from('SetName'), 'setname'));
    assert.ok(!eqIgnoreCase(Buffer.from('setnam'), 'setname'));
  });
});
