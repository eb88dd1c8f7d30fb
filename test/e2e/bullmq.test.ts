/**
 * BullMQ 6.7.0 (ioredis), the same test body against three servers: two PostRESP processes sharing
 * a schema in `unlogged` mode, the same in `logged` mode, and redis-server 7.0 (the oracle).
 * A Queue and a QueueEvents on one instance, a Worker on each: jobs each processed exactly once, a
 * failing job retried after its backoff until its third attempt completes, a delayed job run after
 * its delay, and every `completed` event received by QueueEvents, which reads the events stream
 * with XREAD BLOCK: idle, it waits in one call instead of asking again and again. The Workers wait
 * for jobs in BZPOPMIN on the queue's marker key; the jobs move through BullMQ's Lua scripts.
 * Then: the Worker rate limiter holds (by the server's clock: its events stream), a Worker
 * killed with SIGKILL mid-job has its job recovered as stalled by another Worker, and BullMQ's
 * start-up check (INFO's redis_version and maxmemory_policy) prints no warning. FlowProducer: test/libraries/bullmq-flow.test.ts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Queue, QueueEvents, Worker, type Job } from 'bullmq';
import { RawClient } from './resp-client';
import { connection, postresp, redis, type Target } from './bullmq-targets';

const kBackoffMs = 100;
const kDelayMs = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** INFO commandstats' XREAD calls, summed over the target's servers */
async function xreadCalls(t: Target): Promise<number> {
  let n = 0;
  for (const port of new Set(t.ports)) {
    const c = await RawClient.connect(port);
    const info = String(await c.call('INFO', 'commandstats'));
    c.close();
    n += Number(/cmdstat_xread:calls=(\d+)/.exec(info)?.[1] ?? 0);
  }
  return n;
}

/** what console.warn printed while fn ran (BullMQ warns there about the server it connects to) */
async function warnings(fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const warn = console.warn;
  console.warn = (...a: unknown[]) => void seen.push(a.map(String).join(' '));
  try { await fn(); } finally { console.warn = warn; }
  return seen;
}

/**
 * A Worker in a child process that takes one job of queue `name` and never finishes it; the test
 * kills it with SIGKILL. Its lock lasts lockDuration (500 ms) once it stops renewing it.
 */
function hangingWorker(port: number, name: string) {
  const code = `
    const { Worker } = require('bullmq');
    new Worker(${JSON.stringify(name)}, () => { process.stdout.write('active\\n'); return new Promise(() => {}); },
      { connection: { host: '127.0.0.1', port: ${port}, maxRetriesPerRequest: null }, lockDuration: 500, stalledInterval: 300 });`;
  return spawn(process.execPath, ['-e', code], { cwd: path.resolve(__dirname, '..', '..', '..'), stdio: ['ignore', 'pipe', 'inherit'] });
}

function suite(label: string, start: () => Promise<Target>, kJobs: number) {
  describe(`BullMQ against ${label}`, () => {
    let t: Target;
    before(async () => { t = await start(); });
    after(async () => { await t.stop(); });

    it(`a Queue, QueueEvents and two Workers: ${kJobs} jobs once each, retries, delays, completed events; no start-up warning`, async () => {
      const [pa, pb] = t.ports;
      const q = new Queue('jobs', { connection: connection(pa) });
      const events = new QueueEvents('jobs', { connection: connection(pa) });
      const runs = new Map<string, number>();
      const completed = new Set<string>();
      const failedAttempts: number[] = [];
      let allDone!: () => void;
      const done = new Promise<void>((r) => (allDone = r));
      let delayedStartedAt = 0;
      const process = async (job: Job) => {
        runs.set(job.id!, (runs.get(job.id!) ?? 0) + 1);
        if (job.name === 'later') delayedStartedAt = Date.now();
        if (job.name === 'flaky' && job.attemptsMade < 2) throw new Error(`attempt ${job.attemptsMade + 1} fails`);
        return job.data.n;
      };
      const workers = [pa, pb].map((port) => new Worker('jobs', process, { connection: connection(port), concurrency: 8 }));
      for (const w of workers) w.on('failed', (_job, e) => failedAttempts.push(Number(/attempt (\d)/.exec(e.message)?.[1])));
      try {
        // BullMQ reads INFO at connect: it warns below redis_version 6.2 (recommended minimum)
        // and unless maxmemory_policy is noeviction
        const warned = await warnings(async () => {
          await events.waitUntilReady();
          await Promise.all(workers.map((w) => w.waitUntilReady()));
          await q.waitUntilReady();
        });
        assert.deepEqual(warned, []);
        events.on('completed', ({ jobId }) => {
          completed.add(jobId);
          if (completed.size === kJobs + 2) allDone();
        });
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
        // when the processor ran, not processedOn: BullMQ stamps processedOn with the time its
        // worker *sent* the fetch, and a fetch sent before the delay ended may be served after
        // another worker's fetch promoted the job (two instances, a loaded machine: 138 ms once)
        assert.ok(delayedStartedAt >= d.timestamp + kDelayMs, `run ${delayedStartedAt - d.timestamp} ms after it was added`);
        assert.deepEqual(await q.getJobCounts('completed', 'failed', 'waiting', 'active', 'delayed'),
          { completed: kJobs + 2, failed: 0, waiting: 0, active: 0, delayed: 0 });

        // idle, QueueEvents waits in its XREAD BLOCK (answering at once, it would ask again and again)
        const before = await xreadCalls(t);
        await sleep(300);
        assert.ok(await xreadCalls(t) - before <= 2, 'QueueEvents kept calling XREAD while idle');
      } finally {
        await Promise.all(workers.map((w) => w.close()));
        await events.close();
        await q.close();
      }
    });

    it('the Worker rate limiter holds: at most max jobs move to active per duration', async () => {
      const [pa, pb] = t.ports;
      const max = 4;
      const duration = 400;
      const n = 3 * max;
      let started = 0;
      const q = new Queue('limited', { connection: connection(pa) });
      await q.addBulk(Array.from({ length: n }, (_, i) => ({ name: 'x', data: { i } })));
      const workers = [pa, pb].map((port) => new Worker('limited', async () => void started++,
        { connection: connection(port), concurrency: 8, limiter: { max, duration } }));
      try {
        for (let i = 0; i < 200 && (await q.getJobCounts('completed')).completed < n; i++) await sleep(50);
        assert.equal(started, n);
        // when each job moved to active, by the server's clock: the id of the `active` event its
        // moveToActive added to the queue's events stream (XADD *), in the script that counted it
        // against the limiter. Times seen by the Worker measure reply delivery instead: replies
        // of calls that shared a transaction arrive together, and a loaded machine bunches them
        const c = await RawClient.connect(pa);
        const entries = await c.call('XRANGE', 'bull:limited:events', '-', '+') as [string, string[]][];
        c.close();
        const active = entries.filter(([, f]) => f[0] === 'event' && f[1] === 'active').map(([id]) => Number(id.split('-')[0]));
        assert.equal(active.length, n);
        // the limiter counts in windows of `duration` that open at their first job: job i+2*max
        // is two windows after job i's, so it moves at least `duration` after job i (5 ms: clock steps)
        for (let i = 0; i + 2 * max < n; i++) {
          assert.ok(active[i + 2 * max] - active[i] >= duration - 5, `jobs ${i}..${i + 2 * max} moved to active within ${active[i + 2 * max] - active[i]} ms`);
        }
      } finally {
        await Promise.all(workers.map((w) => w.close()));
        await q.close();
      }
    });

    it('a Worker killed with SIGKILL mid-job: another Worker recovers the job as stalled and completes it', async () => {
      const [pa, pb] = t.ports;
      const q = new Queue('stall', { connection: connection(pa) });
      const child = hangingWorker(pb, 'stall');
      let rescuer: Worker | undefined;
      try {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        const active = new Promise<void>((r) => child.stdout!.on('data', (d: Buffer) => { if (String(d).includes('active')) r(); }));
        const job = await q.add('slow', { n: 7 });
        await active;
        child.kill('SIGKILL');
        await exited;
        const stalled: string[] = [];
        rescuer = new Worker('stall', async (j: Job) => j.data.n * 2,
          { connection: connection(pa), lockDuration: 500, stalledInterval: 300 });
        rescuer.on('stalled', (id) => stalled.push(id));
        for (let i = 0; i < 200 && !(await q.getJob(job.id!))?.finishedOn; i++) await sleep(50);
        const j = (await q.getJob(job.id!))!;
        assert.equal(j.returnvalue, 14);
        assert.deepEqual(stalled, [job.id]);
        assert.equal(j.stalledCounter, 1);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await rescuer?.close();
        await q.close();
      }
    });
  });
}

// logged: each pipelined EVALSHA of addBulk is its own commit with its own WAL flush
// (docs/streams.md "What is left"), 10-75 ms each on a loaded CI disk: fewer jobs there. The
// issue's 10,000 jobs are `npm run bench:bullmq` (docs/BENCHMARKS.md "BullMQ"): PostRESP logged
// takes ~6 minutes for them on the shared 2-core machine (add 63 jobs/s, process 52 jobs/s), far
// above the ~60 s a test may take
suite('PostRESP (unlogged, two instances)', () => postresp('unlogged'), 200);
suite('PostRESP (logged, two instances)', () => postresp('logged'), 40);
suite('redis-server 7.0', redis, 200);
