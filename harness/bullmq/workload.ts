// One bench:bullmq run against one server: BullMQ's Queue.addBulk of N jobs, two Workers draining
// them, a QueueEvents counting `completed`; then a timed phase of delayed jobs and of jobs added
// one at a time at a steady rate, for lateness and latency that queueing behind the bulk does not
// swamp. Every job must complete exactly once and every `completed` event must arrive: a run that
// misses either reports it in `errors`.

import { Queue, QueueEvents, Worker, type Job } from 'bullmq';
import Redis from 'ioredis';
import { sampleCpu } from './proc-cpu';
import { startCounting, stopCounting, type ScriptCall } from './script-calls';

export interface WorkloadOptions {
  port: number;
  pid: number | undefined;
  jobs: number;
  concurrency: [number, number];
  delayed: number;
  /** delays of the delayed jobs: spread evenly over [min, max] ms */
  delayMs: [number, number];
  steady: number;
  steadyRate: number;
  timeoutS: number;
  /** the Workers' lockDuration (BullMQ's default 30 s), their stalled check every half of it */
  lockMs?: number;
}

export interface Percentiles { p50: number; p99: number; max: number }

export interface WorkloadResult {
  addSeconds: number;
  processSeconds: number;
  eventsReceived: number;
  cpuServerUsPerJob: number;
  cpuPostgresUsPerJob: number;
  scripts: ScriptCall[];
  commandstats: string[];
  lateness: Percentiles;
  steadyLatency: Percentiles;
  /** the Workers' `stalled` events: a job whose lock expired, taken back to run again */
  stalled: number;
  errors: string[];
}

const connection = (port: number) => ({ host: '127.0.0.1', port, maxRetriesPerRequest: null });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function percentiles(xs: number[]): Percentiles {
  if (xs.length === 0) return { p50: NaN, p99: NaN, max: NaN };
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  return { p50: at(0.5), p99: at(0.99), max: s[s.length - 1] };
}

/** INFO commandstats as name → [calls, usec] */
async function commandstats(client: Redis): Promise<Map<string, [number, number]>> {
  const info = await client.info('commandstats') + await client.info('stats');
  const out = new Map<string, [number, number]>();
  for (const m of info.matchAll(/cmdstat_([^:]+):calls=(\d+),usec=(\d+)/g)) out.set(m[1], [Number(m[2]), Number(m[3])]);
  // PostRESP's script transactions: how many, and how many restarted waiting on a key's row lock
  const calls = /postresp_script_calls:(\d+)/.exec(info);
  const restarts = /postresp_script_lock_restarts:(\d+)/.exec(info);
  if (calls && restarts) out.set('script lock restarts', [Number(calls[1]), Number(restarts[1])]);
  return out;
}

function statsDelta(a: Map<string, [number, number]>, b: Map<string, [number, number]>): string[] {
  const rows: [string, number, number][] = [];
  for (const [name, [calls, usec]] of b) {
    const [c0, u0] = a.get(name) ?? [0, 0];
    if (calls > c0) rows.push([name, calls - c0, usec - u0]);
  }
  rows.sort((x, y) => y[2] - x[2]);
  const out = rows.filter(([n]) => n !== 'script lock restarts').slice(0, 8).map(([n, c, u]) => `${n} ${c} calls ${(u / c).toFixed(0)} µs/call`);
  const lock = rows.find(([n]) => n === 'script lock restarts');
  if (lock) out.push(`${lock[2]} script lock restarts in ${lock[1]} script calls`);
  return out;
}

export async function runWorkload(o: WorkloadOptions): Promise<WorkloadResult> {
  const errors: string[] = [];
  const name = `bench-${Date.now()}`;
  const q = new Queue(name, { connection: connection(o.port) });
  const events = new QueueEvents(name, { connection: connection(o.port) });
  const info = new Redis(connection(o.port));
  const runs = new Map<string, number>();
  const started = new Map<string, number>();
  const finished = new Map<string, number>();
  const completed = new Map<string, unknown>();
  let expected = o.jobs;
  let stalled = 0;
  let wake: (() => void) | null = null;
  const waitFor = (n: number) => new Promise<void>((resolve, reject) => {
    if (completed.size >= n) return resolve();
    const timer = setTimeout(() => reject(new Error(`${completed.size} of ${n} completed events after ${o.timeoutS} s`)), o.timeoutS * 1000);
    wake = () => { if (completed.size >= n) { clearTimeout(timer); wake = null; resolve(); } };
  });
  events.on('completed', ({ jobId, returnvalue }) => {
    if (completed.has(jobId)) errors.push(`completed event twice for job ${jobId}`);
    completed.set(jobId, returnvalue);
    wake?.();
  });
  const processor = async (job: Job) => {
    runs.set(job.id!, (runs.get(job.id!) ?? 0) + 1);
    started.set(job.id!, Date.now());
    return job.data.n;
  };
  let workers: Worker[] = [];
  try {
    await events.waitUntilReady();
    await q.waitUntilReady();
    const stats0 = await commandstats(info);
    const cpu0 = o.pid ? sampleCpu(o.pid) : null;
    startCounting();

    // bulk: add with no Worker running, then two Workers drain the queue
    const t0 = performance.now();
    const added = await q.addBulk(Array.from({ length: o.jobs }, (_, n) => ({ name: 'bulk', data: { n } })));
    const t1 = performance.now();
    const locks = o.lockMs === undefined ? {} : { lockDuration: o.lockMs, stalledInterval: Math.round(o.lockMs / 2) };
    workers = o.concurrency.map((concurrency) => new Worker(name, processor, { connection: connection(o.port), concurrency, ...locks }));
    for (const w of workers) {
      w.on('completed', (job) => void finished.set(job.id!, Date.now()));
      w.on('stalled', () => void stalled++);
    }
    const all = waitFor(expected);
    await all;
    const t3 = performance.now();
    const scripts = stopCounting();
    const cpu1 = o.pid ? sampleCpu(o.pid) : null;
    const stats1 = await commandstats(info);

    const wrong = added.filter((j) => runs.get(j.id!) !== 1 || completed.get(j.id!) !== j.data.n);
    if (wrong.length) errors.push(`${wrong.length} bulk jobs not run exactly once with their return value, e.g. ${wrong[0].id}: runs ${runs.get(wrong[0].id!)}`);
    const counts = await q.getJobCounts('completed', 'failed', 'waiting', 'active', 'delayed');
    if (counts.completed !== o.jobs || counts.failed || counts.waiting || counts.active || counts.delayed) errors.push(`job counts after the bulk ${JSON.stringify(counts)}`);

    // timed, one after the other: delayed jobs spread over delayMs (their lateness), then jobs
    // added one at a time at steadyRate, below every server's capacity (created → completed)
    const [lo, hi] = o.delayMs;
    const delayedJobs = await Promise.all(Array.from({ length: o.delayed }, (_, i) =>
      q.add('later', { n: -1 - i }, { delay: Math.round(lo + ((hi - lo) * i) / Math.max(1, o.delayed - 1)) })));
    expected += o.delayed;
    await waitFor(expected);
    const steadyJobs: Job[] = [];
    const tSteady = Date.now();
    for (let i = 0; i < o.steady; i++) {
      const due = tSteady + (i * 1000) / o.steadyRate;
      if (due > Date.now()) await sleep(due - Date.now());
      steadyJobs.push(await q.add('steady', { n: o.jobs + i }));
    }
    expected += o.steady;
    await waitFor(expected);
    const lateness = delayedJobs.map((j) => started.get(j.id!)! - (j.timestamp + j.opts.delay!));
    const missing = [...delayedJobs, ...steadyJobs].filter((j) => runs.get(j.id!) !== 1);
    if (missing.length) errors.push(`${missing.length} timed jobs not run exactly once`);
    // give the last Worker 'completed' events a moment: they follow the script's reply
    if (steadyJobs.some((j) => !finished.has(j.id!))) await sleep(200);

    // CPU and script calls cover the bulk (add + process), per bulk job
    const jobsMeasured = o.jobs;
    return {
      addSeconds: (t1 - t0) / 1000,
      processSeconds: (t3 - t1) / 1000,
      eventsReceived: completed.size,
      cpuServerUsPerJob: cpu0 && cpu1 ? (cpu1.serverUs - cpu0.serverUs) / jobsMeasured : NaN,
      cpuPostgresUsPerJob: cpu0 && cpu1 ? (cpu1.postgresUs - cpu0.postgresUs) / jobsMeasured : NaN,
      scripts,
      commandstats: statsDelta(stats0, stats1),
      lateness: percentiles(lateness),
      steadyLatency: percentiles(steadyJobs.filter((j) => finished.has(j.id!)).map((j) => finished.get(j.id!)! - j.timestamp)),
      stalled,
      errors,
    };
  } finally {
    stopCounting();
    await Promise.all(workers.map((w) => w.close()));
    await events.close();
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
    info.disconnect();
  }
}
