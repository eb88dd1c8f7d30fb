import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { popOrder } from './pop-batch';

const row = (pos: number | null, v: string) => [1, pos === null ? null : String(pos), Buffer.from(v), false];
const values = (rows: unknown[][]) => rows.map((r) => (r[2] as Buffer).toString());

describe('popOrder (l_pop_run rows, unordered, placed by pos)', () => {
  it('from the head: lowest pos first, whatever order the rows came in', () => {
    assert.deepEqual(values(popOrder([row(-3, 'c'), row(-5, 'a'), row(-4, 'b')], true)), ['a', 'b', 'c']);
  });
  it('from the tail: highest pos first (the index order of Postgres is reversed)', () => {
    assert.deepEqual(values(popOrder([row(7, 'z'), row(8, 'y'), row(9, 'x')], false)), ['x', 'y', 'z']);
  });
  it('one row (an element, a count of 0, WRONGTYPE) is returned as it is', () => {
    const one = [[2, null, null, null]];
    assert.equal(popOrder(one, true), one);
    const zero = [row(null, '')];
    assert.equal(popOrder(zero, false), zero);
  });
  it('positions that are not contiguous are an error, never a wrong reply', () => {
    assert.throws(() => popOrder([row(1, 'a'), row(3, 'b')], true), /not contiguous/);
    assert.throws(() => popOrder([row(1, 'a'), row(1, 'b')], true), /not contiguous/);
  });
});
