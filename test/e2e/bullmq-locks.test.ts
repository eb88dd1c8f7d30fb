/**
 * BullMQ Workers with short job locks under load (issue 16): two Workers of concurrency 50, each on
 * one connection, drain jobs whose locks last 2 s (renewed every 1 s by extendLocks, a script
 * pipelined behind the Worker's moveToFinished calls). Each job must run once: no `stalled` event,
 * no job failed, every job completed. When a client's script calls waited for each other's replies
 * (dispatch held each until the previous answered), a Worker's renewal came after the lock expired
 * and jobs ran twice (docs/BENCHMARKS.md "Why 27 of 10,000 jobs ran twice"); now they are queued
 * back to back and share batches (workers/script-join.ts). redis-server runs the same body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Queue, Worker, type Job } from 'bullmq';
import { connection, postresp, redis, type Target } from './bullmq-targets';

const kJobs = Number(process.env.BULLMQ_LOCK_JOBS ?? 1000);
const kLockMs = 2000;

function suite(label: string, start: () => Promise<Target>) {
  describe(`BullMQ, ${kLockMs} ms job locks, against ${label}`, () => {
    let t: Target;
    before(async () => { t = await start(); });
    after(async () => { await t.stop(); });

    it(`two Workers of concurrency 50 run ${kJobs} jobs once each: no stalled job, none failed`, async () => {
      const [pa, pb] = t.ports;
      const q = new Queue('locks', { connection: connection(pa) });
      const runs = new Map<string, number>();
      const stalled: string[] = [];
      const failed: string[] = [];
      const process = async (job: Job) => {
        runs.set(job.id!, (runs.get(job.id!) ?? 0) + 1);
        // long enough that 50 jobs of a Worker are in flight, with their locks, at once
        await new Promise((r) => setTimeout(r, 20));
        return job.data.n;
      };
      try {
        await q.addBulk(Array.from({ length: kJobs }, (_, n) => ({ name: 'j', data: { n } })));
        const workers = [pa, pb].map((port) => new Worker('locks', process,
          { connection: connection(port), concurrency: 50, lockDuration: kLockMs, stalledInterval: kLockMs / 2 }));
        for (const w of workers) {
          w.on('stalled', (id) => stalled.push(id));
          w.on('failed', (job, e) => failed.push(`${job?.id}: ${e.message}`));
        }
        try {
          const deadline = Date.now() + 600_000;
          while (Date.now() < deadline && (await q.getJobCounts('completed')).completed + failed.length < kJobs) {
            await new Promise((r) => setTimeout(r, 200));
          }
        } finally {
          await Promise.all(workers.map((w) => w.close()));
        }
        const twice = [...runs].filter(([, n]) => n !== 1);
        assert.deepEqual({ stalled: stalled.length, failed: failed.slice(0, 3), twice: twice.length, ran: runs.size },
          { stalled: 0, failed: [], twice: 0, ran: kJobs });
        assert.deepEqual(await q.getJobCounts('completed', 'failed', 'waiting', 'active', 'delayed'),
          { completed: kJobs, failed: 0, waiting: 0, active: 0, delayed: 0 });
      } finally {
        await q.obliterate({ force: true }).catch(() => undefined);
        await q.close();
      }
    });
  });
}

suite('PostRESP (logged, two instances)', () => postresp('logged', 'bullmq_locks'));
suite('redis-server 7.0', redis);
