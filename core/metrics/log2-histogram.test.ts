import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bucketOf, mergeInto, newHistogram, quantile, record, total } from './log2-histogram';

describe('log2 histogram', () => {
  it('puts values in (2^(i-1), 2^i]', () => {
    assert.equal(bucketOf(0), 0);
    assert.equal(bucketOf(1), 0);
    assert.equal(bucketOf(2), 1);
    assert.equal(bucketOf(3), 2);
    assert.equal(bucketOf(4), 2);
    assert.equal(bucketOf(5), 3);
    assert.equal(bucketOf(1024), 10);
    assert.equal(bucketOf(1025), 11);
    assert.equal(bucketOf(2 ** 40), 31);
  });
  it('answers quantiles with bucket upper bounds and merges', () => {
    const h = newHistogram();
    for (let i = 0; i < 99; i++) record(h, 10);
    record(h, 5000);
    assert.equal(quantile(h, 0.5), 16);
    assert.equal(quantile(h, 0.99), 16);
    assert.equal(quantile(h, 0.999), 8192);
    const g = newHistogram();
    mergeInto(g, h);
    mergeInto(g, h);
    assert.equal(total(g), 200);
  });
});
