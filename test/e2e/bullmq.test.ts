/**
 * BullMQ 6.7.0 (ioredis) against two PostRESP processes sharing a schema: a Queue and a
 * QueueEvents on one, a Worker on each. 200 jobs each processed exactly once, a failing job
 * retried after its backoff until its third attempt completes, a delayed job run after its delay,
 * and every `completed` event received by QueueEvents, which reads the events stream with
 * XREAD BLOCK: idle, it waits in one call instead of asking again and again. The Workers wait for
 * jobs in BZPOPMIN on the queue's marker key; the jobs move through BullMQ's Lua scripts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Queue, QueueEvents, Worker, type Job } from 'bullmq';
import { RawClient } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';

const schema = uniqueSchema('bullmq');
/** unlogged: each job is a few committed transactions, and a loaded CI disk's fsyncs made 200 jobs take 15 s */
const kArgs = ['--workers', '2', '--storage-mode', 'unlogged'];
let a: RunningServer;
let b: RunningServer;

before(async () => {
  [a, b] = await Promise.all([startServer(kArgs, { schema }), startServer(kArgs, { schema })]);
});
after(async () => {
  await Promise.all([a.stop(), b.stop()]);
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
});

/** BullMQ requires maxRetriesPerRequest null on the connections it blocks on */
const connection = (port: number) => ({ host: '127.0.0.1', port, maxRetriesPerRequest: null });

const kJobs = 200;
const kBackoffMs = 100;
const kDelayMs = 300;

/** INFO commandstats' XREAD calls, summed over both instances */
async function xreadCalls(): Promise<number> {
  let n = 0;
  for (const s of [a, b]) {
    const c = await RawClient.connect(s.port);
    const info = String(await c.call('INFO', 'commandstats'));
    c.close();
    n += Number(/cmdstat_xread:calls=(\d+)/.exec(info)?.[1] ?? 0);
  }
  return n;
}

describe('BullMQ', () => {
  it('a Queue, QueueEvents and two Workers on two instances: every job once, retries, delays, completed events', async () => {
    const q = new Queue('jobs', { connection: connection(a.port) });
    const events = new QueueEvents('jobs', { connection: connection(a.port) });
    const runs = new Map<string, number>();
    const completed = new Set<string>();
    const failedAttempts: number[] = [];
    let allDone!: () => void;
    const done = new Promise<void>((r) => (allDone = r));
    const process = async (job: Job) => {
      runs.set(job.id!, (runs.get(job.id!) ?? 0) + 1);
      if (job.name === 'flaky' && job.attemptsMade < 2) throw new Error(`attempt ${job.attemptsMade + 1} fails`);
      return job.data.n;
    };
    const workers = [a, b].map((s) => new Worker('jobs', process, { connection: connection(s.port), concurrency: 8 }));
    for (const w of workers) w.on('failed', (_job, e) => failedAttempts.push(Number(/attempt (\d)/.exec(e.message)?.[1])));
    try {
      await events.waitUntilReady();
      events.on('completed', ({ jobId }) => {
        completed.add(jobId);
        if (completed.size === kJobs + 2) allDone();
      });
      await Promise.all(workers.map((w) => w.waitUntilReady()));
      const added = await q.addBulk(Array.from({ length: kJobs }, (_, n) => ({ name: 'plain', data: { n } })));
      const flaky = await q.add('flaky', { n: -1 }, { attempts: 3, backoff: { type: 'fixed', delay: kBackoffMs } });
      const delayed = await q.add('later', { n: -2 }, { delay: kDelayMs });
      await done;

      assert.deepEqual([...added.map((j) => j.id!), flaky.id!, delayed.id!].filter((id) => !completed.has(id)), []);
      assert.deepEqual(added.filter((j) => runs.get(j.id!) !== 1).map((j) => [j.id, runs.get(j.id!)]), []);
      assert.equal(runs.get(flaky.id!), 3);
      assert.deepEqual(failedAttempts.sort(), [1, 2]);
      const f = (await q.getJob(flaky.id!))!;
      assert.equal(f.attemptsMade, 3);
      assert.equal(f.returnvalue, -1);
      const d = (await q.getJob(delayed.id!))!;
      assert.ok(d.processedOn! >= d.timestamp + kDelayMs, `processed ${d.processedOn! - d.timestamp} ms after it was added`);
      assert.deepEqual(await q.getJobCounts('completed', 'failed', 'waiting', 'active', 'delayed'),
        { completed: kJobs + 2, failed: 0, waiting: 0, active: 0, delayed: 0 });

      // idle, QueueEvents waits in its XREAD BLOCK (answering at once, it would ask again and again)
      const before = await xreadCalls();
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(await xreadCalls() - before <= 2, 'QueueEvents kept calling XREAD while idle');
    } finally {
      await Promise.all(workers.map((w) => w.close()));
      await events.close();
      await q.close();
    }
  });
});
