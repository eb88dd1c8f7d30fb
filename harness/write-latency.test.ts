// bench:write-latency: its flags, the rate search, latency counted from intended send times on a
// real socket, and one short real run against PostRESP (unlogged).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startStub } from './fixtures/resp-stub';
import type { CliIo } from './cli';
import { searchRate } from './rate-search';
import { runTest } from './run';
import { selectTests } from './workloads';
import { harnessOptions, main } from './write-latency';
import { kWriteLatencyDefaults, parseWriteLatencyArgs } from './write-latency-options';

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (s) => { out += s; }, err: (s) => { err += s; }, tty: false };
  const code = await main(argv, io);
  return { code, out, err };
}

test('flags: defaults, values, the --slo form', () => {
  const d = parseWriteLatencyArgs([]);
  assert.deepEqual({ rps: d.rps, duration: d.duration, connections: d.connections, dataSize: d.dataSize, slo: d.slo, durabilities: d.durabilities, only: d.only },
    { rps: 2000, duration: 10, connections: 50, dataSize: 1024, slo: null, durabilities: ['durable', 'volatile'], only: 'all' });
  const o = parseWriteLatencyArgs(['--rps', '5000', '--duration', '2.5', '--connections', '8', '--slo', 'p99<5ms', '--pairings', 'volatile', '--only', 'postresp', '--nap', '0']);
  assert.equal(o.rps, 5000);
  assert.equal(o.duration, 2.5);
  assert.equal(o.connections, 8);
  assert.deepEqual(o.durabilities, ['volatile']);
  assert.equal(o.only, 'postresp');
  assert.equal(o.napUs, 0);
  assert.deepEqual([o.slo?.percentile, o.slo?.op, o.slo?.bound], [99, '<', 5000]);
  assert.equal(parseWriteLatencyArgs(['--slo', 'p999<800us']).slo?.percentile, 99.9);
  assert.equal(parseWriteLatencyArgs(['--slo', 'p50 < 1.5ms']).slo?.bound, 1500);
  assert.equal(parseWriteLatencyArgs(['-c', '3', '--rps', '3']).connections, 3);
  assert.equal(kWriteLatencyDefaults.napUs, 30);
  const h = harnessOptions(d, { host: '127.0.0.1', port: 7000 }, 1500, 3);
  assert.deepEqual([h.rps, h.duration, h.warmup, h.clients, h.dataSize, h.keyspace, h.randomKeys, h.napUs, h.tests], [1500, 3, 1, 50, 1024, 100000, true, 30, ['set']]);
});

test('flags: bad ones are refused with the reason', () => {
  const bad: Array<[string[], RegExp]> = [
    [['--slo', 'p99<5'], /--slo expects p50\|p95\|p99\|p999 < a number with ms or us/],
    [['--slo', 'p90<5ms'], /--slo expects/],
    [['--slo', 'p99>5ms'], /--slo expects/],
    [['--slo', 'p99<5s'], /--slo expects/],
    [['--slo', 'avg<1ms'], /--slo expects/],
    [['--slo', 'p99<0ms'], /above 0/],
    [['--rps', '0'], /--rps expects a number >= 1, got "0"/],
    [['--rps', 'fast'], /--rps expects a number/],
    [['--rps'], /--rps needs a value/],
    [['--duration', '--rps', '10'], /--duration needs a value/],
    [['--connections', '2.5'], /--connections expects an integer/],
    [['--pairings', 'safe'], /--pairings takes durable, volatile/],
    [['--only', 'mongo'], /--only takes postresp, redis or all/],
    [['--nap', '5000'], /--nap must be at most 1000/],
    [['--rps', '10'], /--connections \(50\) must not exceed --rps \(10\)/],
    [['--bogus', '1'], /unknown option "--bogus"/],
  ];
  for (const [argv, why] of bad) assert.throws(() => parseWriteLatencyArgs(argv), why, argv.join(' '));
});

test('bad flags: exit status 1, the reason and the usage on stderr, nothing run', async () => {
  const r = await run(['--slo', 'p99<5']);
  assert.equal(r.code, 1);
  assert.equal(r.out, '');
  assert.match(r.err, /^--slo expects .*got "p99<5"\n\nUsage: npm run bench:write-latency/);
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /coordinated omission corrected/);
});

test('rate search: doubles, then bisects to the highest passing rate', async () => {
  const tried: number[] = [];
  const up = await searchRate({ start: 2000, min: 50, maxSteps: 10, resolution: 0.1 }, async (rate) => {
    tried.push(rate);
    return { rate, pass: rate <= 5200 };
  });
  assert.deepEqual(tried, [2000, 4000, 8000, 6000, 5000, 5500]);
  assert.deepEqual(up, { best: 5000, firstFail: 5500, steps: 6 });
  const down = await searchRate({ start: 2000, min: 50, maxSteps: 10, resolution: 0.1 }, async (rate) => ({ rate, pass: rate <= 300 }));
  assert.ok(down.best <= 300 && down.firstFail > 300 && (down.firstFail - down.best) / down.best <= 0.1, JSON.stringify(down));
  const never = await searchRate({ start: 2000, min: 50, maxSteps: 20, resolution: 0.1 }, async (rate) => ({ rate, pass: false }));
  assert.deepEqual(never, { best: 0, firstFail: 50, steps: 7 });
  const bounded = await searchRate({ start: 1000, min: 1, maxSteps: 3, resolution: 0.1 }, async (rate) => ({ rate, pass: true }));
  assert.deepEqual(bounded, { best: 4000, firstFail: Infinity, steps: 3 });
});

test('latency counts from intended send times: a reply held 300 ms is charged to every request queued behind it', async () => {
  // One connection at 1,000 SET/s for 1 s; the server holds its replies once for 300 ms after
  // 200 commands. The ~300 requests due during the hold wait 0-300 ms each (~200 of them over
  // 100 ms); a loop that measured from the actual send, or waited before sending, would record
  // one slow reply.
  const stub = await startStub({ stallAfter: 200, stallMs: 300 });
  try {
    const w = parseWriteLatencyArgs(['-c', '1', '--rps', '1000', '--duration', '1', '--warmup', '0']);
    const o = harnessOptions(w, { host: '127.0.0.1', port: stub.port }, 1000, 1);
    assert.equal(o.rps, 1000);
    assert.equal(o.dataSize, 1024);
    const r = await runTest(o, selectTests(o)[0]);
    assert.equal(r.failure, null);
    assert.ok(r.requests >= 900, `${r.requests} requests`);
    assert.ok(r.histogram.maxValue >= 250_000, `max ${r.histogram.maxValue} µs`);
    // >= 10% of the requests (~20% expected) recorded at >= 100 ms
    assert.ok(r.histogram.getValueAtPercentile(90) >= 100_000, `p90 ${r.histogram.getValueAtPercentile(90)} µs`);
    r.histogram.destroy();
  } finally {
    await stub.close();
  }
});

test('a short real run against PostRESP (unlogged) prints its row with every column filled', async () => {
  const pg = process.env.DATABASE_URL ? ['--pg-url', process.env.DATABASE_URL, '--schema', `harness_wl_${process.pid}`] : [];
  const r = await run(['--only', 'postresp', '--pairings', 'volatile', '--rps', '200', '--duration', '1', '--warmup', '0', '-c', '4', ...pg]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /coordinated omission corrected/);
  const header = r.out.split('\n').find((l) => l.startsWith('| server |'));
  assert.equal(header, '| server | durability | rate/s | p50 ms | p95 ms | p99 ms | max ms | achieved/s | errors | load avg 1/5/15 min |');
  const row = r.out.split('\n').find((l) => l.startsWith('| PostRESP |'));
  assert.ok(row !== undefined, r.out);
  const cells = row.split('|').slice(1, -1).map((c) => c.trim());
  assert.deepEqual(cells.slice(0, 3), ['PostRESP', '--storage-mode unlogged', '200']);
  const [p50, p95, p99, max] = cells.slice(3, 7).map(Number);
  assert.ok(p50 > 0 && p50 <= p95 && p95 <= p99 && p99 <= max, cells.join(' '));
  assert.ok(Number(cells[7].replace(/,/g, '')) > 0, `achieved ${cells[7]}`);
  assert.equal(cells[8], '0');
  assert.match(cells[9], /^\d+\.\d\d \d+\.\d\d \d+\.\d\d$/);
  assert.equal(r.out.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| server')).length, 1);
});
