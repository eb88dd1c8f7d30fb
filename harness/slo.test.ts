import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateSlo, parseSlo } from './slo';

test('SLO parsing: percentiles, units, operators', () => {
  const s = parseSlo('p50<1ms, p99<=5ms,p999<20ms,p99.99<1s,p9999<2s,avg<500us,max<1s,rps>50000');
  assert.deepEqual(s.map((o) => [o.metric, o.percentile, o.op, o.bound]), [
    ['percentile', 50, '<', 1000],
    ['percentile', 99, '<=', 5000],
    ['percentile', 99.9, '<', 20000],
    ['percentile', 99.99, '<', 1_000_000],
    ['percentile', 99.99, '<', 2_000_000],
    ['avg', 0, '<', 500],
    ['max', 100, '<', 1_000_000],
    ['rps', 0, '>', 50000],
  ]);
  assert.equal(parseSlo('p90<0.5ms')[0].bound, 500);
});

test('SLO parsing refuses what it cannot read', () => {
  assert.throws(() => parseSlo('p99<5'), /needs a unit/);
  assert.throws(() => parseSlo('p99 5ms'), /cannot parse/);
  assert.throws(() => parseSlo('p0<1ms'), /percentile/);
  assert.throws(() => parseSlo('rps>5ms'), /no unit/);
});

test('SLO evaluation: pass and fail', () => {
  const input = { valueAtPercentile: (p: number) => (p >= 99.9 ? 30_000 : p >= 99 ? 4_000 : 800), avgUs: 900, maxUs: 50_000, rps: 60000 };
  const v = evaluateSlo(parseSlo('p50<1ms,p99<5ms,p999<20ms,rps>50000'), input);
  assert.deepEqual(v.map((x) => x.pass), [true, true, false, true]);
  assert.equal(v[2].actual, 30_000);
});
