// Job locks under load (docs/scripting.md "BullMQ's job locks"), against a server already running:
// --queues queues at once, each Queue.addBulk of --jobs jobs of --job-ms ms, then two Workers
// (concurrency 10 and 50) with lockDuration --lock-ms (stalled check every half of it), while the
// Queue asks getJobCounts every --poll-ms (0: never; its getCounts script reads the queue's sets
// without declaring them). Per queue: jobs/s, jobs run more than once, `stalled` events,
// "Missing lock" errors (a moveToFinished that found the lock gone), jobs failed.
//
//   node dist/harness/bullmq/locks.js --port P [--jobs 1500] [--lock-ms 10000] [--job-ms 0]
//                                     [--queues 2] [--poll-ms 500] [--timeout 400]

import { Queue, Worker, type Job } from 'bullmq';

interface Options { port: number; jobs: number; lockMs: number; jobMs: number; queues: number; pollMs: number; timeoutS: number }

function parse(argv: string[]): Options {
  const o: Options = { port: 0, jobs: 1500, lockMs: 10_000, jobMs: 0, queues: 2, pollMs: 500, timeoutS: 400 };
  const names: Record<string, keyof Options> = { '--port': 'port', '--jobs': 'jobs', '--lock-ms': 'lockMs', '--job-ms': 'jobMs',
    '--queues': 'queues', '--poll-ms': 'pollMs', '--timeout': 'timeoutS' };
  for (let i = 0; i < argv.length; i += 2) {
    const k = names[argv[i]];
    if (k === undefined || argv[i + 1] === undefined) throw new Error(`unknown option or missing value: ${argv[i]}`);
    o[k] = Number(argv[i + 1]);
  }
  if (!o.port) throw new Error('--port is required');
  return o;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function oneQueue(o: Options, n: number): Promise<string> {
  const connection = { host: '127.0.0.1', port: o.port, maxRetriesPerRequest: null };
  const name = `locks-${Date.now()}-${n}`;
  const q = new Queue(name, { connection });
  const runs = new Map<string, number>();
  let stalled = 0;
  let missing = 0;
  const ended = new Set<string>();
  const t0 = performance.now();
  await q.addBulk(Array.from({ length: o.jobs }, (_, i) => ({ name: 'j', data: { i } })));
  const t1 = performance.now();
  const workers = [10, 50].map((concurrency) => {
    const w = new Worker(name, async (job: Job) => {
      runs.set(job.id!, (runs.get(job.id!) ?? 0) + 1);
      if (o.jobMs > 0) await sleep(o.jobMs);
    }, { connection, concurrency, lockDuration: o.lockMs, stalledInterval: Math.round(o.lockMs / 2) });
    w.on('stalled', () => void stalled++);
    w.on('error', (e) => { if (/Missing lock/.test(e.message)) missing++; });
    w.on('completed', (job) => void ended.add(job.id!));
    w.on('failed', (job) => { if (job !== undefined && job.finishedOn !== undefined) ended.add(job.id!); });
    return w;
  });
  let counts: Record<string, number> = {};
  try {
    for (const end = Date.now() + o.timeoutS * 1000; Date.now() < end;) {
      // --poll-ms 0: no getCounts while the Workers run, the Workers' events say when all ended
      if (o.pollMs > 0) counts = await q.getJobCounts('completed', 'failed');
      if (o.pollMs > 0 ? counts.completed + counts.failed >= o.jobs : ended.size >= o.jobs) break;
      await sleep(o.pollMs > 0 ? o.pollMs : 100);
    }
    counts = await q.getJobCounts('completed', 'failed');
  } finally {
    await Promise.all(workers.map((w) => w.close(true)));
    await q.obliterate({ force: true }).catch(() => undefined);
    await q.close();
  }
  const twice = [...runs.values()].filter((x) => x > 1).length;
  return `${name}: add ${(o.jobs / ((t1 - t0) / 1000)).toFixed(0)} jobs/s, process ${(o.jobs / ((performance.now() - t1) / 1000)).toFixed(1)} jobs/s,`
    + ` ran twice ${twice}, stalled ${stalled}, Missing lock ${missing}, failed ${counts.failed ?? '?'}, completed ${counts.completed ?? '?'}`;
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const lines = await Promise.all(Array.from({ length: o.queues }, (_, i) => oneQueue(o, i)));
  for (const l of lines) console.log(l);
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
