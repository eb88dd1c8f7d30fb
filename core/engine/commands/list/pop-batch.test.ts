import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { popPlaces } from './pop-batch';

/** the rows' values in the order popPlaces gives, for rows with these offsets and values */
function popped(offs: (number | null)[], vals: string, left: boolean): string {
  return Array.from(popPlaces(offs.length, (r) => offs[r], left), (r) => vals[r]).join('');
}

describe('popPlaces (l_pop_run rows, unordered, placed by their offset)', () => {
  it('from the head: offset 0 first, whatever order the rows came in', () => {
    assert.equal(popped([2, 0, 1], 'cab', true), 'abc');
  });
  it('from the tail: the highest offset first (the index order of Postgres is reversed)', () => {
    assert.equal(popped([0, 1, 2], 'zyx', false), 'xyz');
  });
  it('one row is its own place; none is none', () => {
    assert.deepEqual([...popPlaces(1, () => 0, false)], [0]);
    assert.deepEqual([...popPlaces(0, () => 0, true)], []);
  });
  it('offsets that are not 0…n-1 are an error, never a wrong reply', () => {
    assert.throws(() => popPlaces(2, (r) => [0, 2][r], true), /not 0…n-1/);
    assert.throws(() => popPlaces(2, () => 1, false), /not 0…n-1/);
    assert.throws(() => popPlaces(2, (r) => [0, null][r], true), /not 0…n-1/);
    assert.throws(() => popPlaces(1, () => 0.5, true), /not 0…n-1/);
  });
});
