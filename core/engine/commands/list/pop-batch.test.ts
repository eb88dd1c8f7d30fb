import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { popOrder } from './pop-batch';

const row = (off: number | null, v: string) => [1, off, Buffer.from(v), false];
const values = (rows: unknown[][]) => rows.map((r) => (r[2] as Buffer).toString());

describe('popOrder (l_pop_run rows, unordered, placed by their offset)', () => {
  it('from the head: offset 0 first, whatever order the rows came in', () => {
    assert.deepEqual(values(popOrder([row(2, 'c'), row(0, 'a'), row(1, 'b')], true)), ['a', 'b', 'c']);
  });
  it('from the tail: the highest offset first (the index order of Postgres is reversed)', () => {
    assert.deepEqual(values(popOrder([row(0, 'z'), row(1, 'y'), row(2, 'x')], false)), ['x', 'y', 'z']);
  });
  it('one row (an element, a count of 0, WRONGTYPE) is returned as it is', () => {
    const one = [[2, null, null, null]];
    assert.equal(popOrder(one, true), one);
    const zero = [row(null, '')];
    assert.equal(popOrder(zero, false), zero);
  });
  it('offsets that are not 0…n-1 are an error, never a wrong reply', () => {
    assert.throws(() => popOrder([row(0, 'a'), row(2, 'b')], true), /not 0…n-1/);
    assert.throws(() => popOrder([row(1, 'a'), row(1, 'b')], false), /not 0…n-1/);
    assert.throws(() => popOrder([row(0, 'a'), row(null, 'b')], true), /not 0…n-1/);
  });
});
