/**
 * bee-queue 2.0.0 (its own node_redis 3 client) processing 1,000 jobs with two workers, one on
 * each of two PostRESP processes sharing a schema: every job exactly once. The workers wait in
 * BRPOPLPUSH waiting → active and finish each job in a MULTI (LREM, SREM, HSET, SADD).
 *
 * What is left out until the layers it needs are on main: bee-queue's job events and delayed jobs
 * (getEvents, sendEvents, activateDelayedJobs) need pub/sub, and creating a job runs its Lua
 * script addJob.lua through EVALSHA (scripting, issue 14); so the workers run with those off and
 * ensureScripts false, and the jobs are added with the three commands addJob.lua runs (INCR of
 * the id counter, HSET of the job's data, LPUSH onto waiting) in a MULTI, the data made by
 * bee-queue's own Job#toData. Queue#process starts with a stalled-job check, checkStalledJobs.lua
 * through EVALSHA too: it is replaced by a no-op (with no stalled job it changes nothing).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import BeeQueue from 'bee-queue';
import { RawClient } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';

const schema = uniqueSchema('bee');
let a: RunningServer;
let b: RunningServer;

before(async () => {
  [a, b] = await Promise.all([startServer(['--workers', '2'], { schema }), startServer(['--workers', '2'], { schema })]);
});
after(async () => {
  await Promise.all([a.stop(), b.stop()]);
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
});

const kJobs = 1000;
const settings = (port: number): BeeQueue.QueueSettings => ({
  redis: { host: '127.0.0.1', port }, isWorker: true, getEvents: false, sendEvents: false,
  activateDelayedJobs: false, ensureScripts: false, removeOnSuccess: false,
});

describe('bee-queue', () => {
  it('two workers on two instances process 1,000 jobs, each exactly once', async () => {
    const workers = [new BeeQueue('jobs', settings(a.port)), new BeeQueue('jobs', settings(b.port))];
    for (const q of workers) (q as unknown as { _doStalledJobCheck(): Promise<void> })._doStalledJobCheck = () => Promise.resolve();
    try {
      await run(workers);
    } finally {
      await Promise.all(workers.map((q) => q.close(5000).catch(() => undefined)));
    }
  });
});

async function run(workers: BeeQueue[]): Promise<void> {
  {
    const done: number[][] = [[], []];
    let finished = 0;
    let allDone!: () => void;
    const all = new Promise<void>((r) => (allDone = r));
    workers.forEach((q, w) => q.process(4, async (job: BeeQueue.Job<{ n: number }>) => {
      done[w].push(job.data.n);
      if (++finished === kJobs) allDone();
      return job.data.n;
    }));
    await Promise.all(workers.map((q) => q.ready()));

    const producer = await RawClient.connect(a.port);
    const maker = new BeeQueue('jobs', { ...settings(a.port), isWorker: false, autoConnect: false });
    for (let n = 0; n < kJobs; n += 100) {
      const batch: string[] = [];
      for (let i = n; i < n + 100; i++) {
        // addJob.lua's commands: the id from the counter, the data, the id onto waiting
        const data = (maker.createJob({ n: i }) as unknown as { toData(): string }).toData();
        const id = String(i + 1);
        batch.push(cmd('MULTI'), cmd('INCR', 'bq:jobs:id'), cmd('HSET', 'bq:jobs:jobs', id, data),
          cmd('LPUSH', 'bq:jobs:waiting', id), cmd('EXEC'));
      }
      producer.send(batch.join(''));
      await producer.read(500, 20000);
    }
    await all;
    // close waits for the jobs in hand to finish (their MULTI): then every job is recorded
    await Promise.all(workers.map((q) => q.close(5000)));

    const seen = [...done[0], ...done[1]].sort((x, y) => x - y);
    assert.deepEqual(seen, Array.from({ length: kJobs }, (_, i) => i));
    assert.ok(done[0].length > 0 && done[1].length > 0, `both workers took jobs: ${done[0].length} and ${done[1].length}`);
    assert.equal(await producer.call('SCARD', 'bq:jobs:succeeded'), kJobs);
    assert.equal(await producer.call('LLEN', 'bq:jobs:active'), 0);
    assert.equal(await producer.call('LLEN', 'bq:jobs:waiting'), 0);
    producer.close();
  }
}

function cmd(...args: string[]): string {
  return `*${args.length}\r\n${args.map((x) => `$${Buffer.byteLength(x)}\r\n${x}\r\n`).join('')}`;
}
