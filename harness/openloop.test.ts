// Coordinated omission, shown: a server that stalls once for 1 s. The closed loop stops sending
// while it waits, so only the few requests in flight see the stall and p99 stays small; the open
// loop keeps its schedule, every request due during the stall waits, and p99 shows the stall.
// Margins are wide (closed p99 < 250 ms, open p99 >= 400 ms for a 1 s stall) so a loaded
// 2-core machine does not flip the result.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startStub } from './fixtures/resp-stub';
import { parseArgs } from './options';
import { summarize } from './report';
import { runTest } from './run';
import { selectTests } from './workloads';

async function measure(flags: string[]): Promise<{ p99: number; max: number; requests: number; rps: number; failure: string | null }> {
  const stub = await startStub({ stallAfter: 300, stallMs: 1000 });
  try {
    const o = parseArgs(['-p', String(stub.port), '-t', 'ping_mbulk', '-c', '1', ...flags]);
    const r = await runTest(o, selectTests(o)[0]);
    const s = summarize(r.histogram);
    return { p99: s.p99, max: s.max, requests: r.requests, rps: r.rps, failure: r.failure };
  } finally {
    await stub.close();
  }
}

test('closed loop hides a 1 s stall in p99; the open loop (--rps) shows it', async () => {
  const closed = await measure(['-n', '4000']);
  const open = await measure(['-n', '2000', '--rps', '1000']);
  assert.equal(closed.failure, null);
  assert.equal(open.failure, null);
  assert.equal(open.requests, 2000);
  // The stall happened in both runs: each saw a reply about 1 s late.
  assert.ok(closed.max >= 900, `closed max ${closed.max} ms`);
  assert.ok(open.max >= 900, `open max ${open.max} ms`);
  assert.ok(closed.p99 < 250, `closed-loop p99 ${closed.p99} ms should hide the stall`);
  assert.ok(open.p99 >= 400, `open-loop p99 ${open.p99} ms should show the stall`);
});

test('open loop keeps its rate: 2000 requests/s for 1 s over 4 clients', async () => {
  const stub = await startStub();
  try {
    const o = parseArgs(['-p', String(stub.port), '-t', 'ping_mbulk', '-c', '4', '--rps', '2000', '--duration', '1']);
    const r = await runTest(o, selectTests(o)[0]);
    assert.equal(r.failure, null);
    assert.ok(r.requests >= 1700 && r.requests <= 2300, `${r.requests} requests`);
  } finally {
    await stub.close();
  }
});

test('open loop with a pipeline: batches of -P on the schedule', async () => {
  const stub = await startStub();
  try {
    const o = parseArgs(['-p', String(stub.port), '-t', 'ping_mbulk', '-c', '2', '-P', '10', '--rps', '5000', '-n', '3000']);
    const r = await runTest(o, selectTests(o)[0]);
    assert.equal(r.failure, null);
    assert.equal(r.requests, 3000);
    assert.ok(r.elapsedSec > 0.45 && r.elapsedSec < 1.5, `${r.elapsedSec} s`);
  } finally {
    await stub.close();
  }
});
