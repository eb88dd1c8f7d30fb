/**
 * BullMQ 6.7.0's FlowProducer (ioredis), the same body against two PostRESP processes sharing a
 * schema (`unlogged` and `logged`) and against redis-server 7.0 (the oracle). A flow is added in
 * one MULTI, where ioredis sends each script's first use on the connection as EVAL and the next as
 * EVALSHA (a flow with two children failed with NOSCRIPT before EXEC ran its script calls in
 * order: docs/scripting.md "Scripts in MULTI"). The children's Worker runs on one instance, the
 * parent's on the other: the parent runs only after every child completed, and sees their return
 * values (getChildrenValues). A one-child flow is repeated (FLOW_REPEAT, default 10): its parent
 * once in a while never ran (2 of 4 runs of an earlier session).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FlowProducer, Queue, Worker, type Job } from 'bullmq';
import { connection, postresp, redis, type Target } from '../e2e/bullmq-targets';

const kRepeat = Number(process.env.FLOW_REPEAT ?? 10);
/** a parent not finished this long after its flow was added counts as never run */
const kWaitMs = 15000;

interface Finished { id: string; name: string; finishedAt: number; children?: Record<string, unknown> }

/**
 * A children's Worker on one instance, a parents' Worker on the other; `flows` flows of `kids`
 * children each, added one after another; what each parent saw. Children return their n × 10.
 */
async function runFlows(t: Target, queue: string, kids: number, flows: number) {
  const [pa, pb] = t.ports;
  const producer = new FlowProducer({ connection: connection(pa) });
  const parents = new Queue(queue, { connection: connection(pa) });
  const childrenDone: Finished[] = [];
  const parentsDone = new Map<string, Finished>();
  const waiting = new Map<string, () => void>();
  const kidWorker = new Worker(`${queue}-kids`, async (job: Job) => {
    childrenDone.push({ id: job.id!, name: job.name, finishedAt: Date.now() });
    return job.data.n * 10;
  }, { connection: connection(pa), concurrency: 4 });
  const parentWorker = new Worker(queue, async (job: Job) => {
    const children = await job.getChildrenValues();
    parentsDone.set(job.id!, { id: job.id!, name: job.name, finishedAt: Date.now(), children });
    return Object.keys(children).length;
  }, { connection: connection(pb) });
  parentWorker.on('completed', (job) => waiting.get(job.id!)?.());
  const out: { flow: Awaited<ReturnType<FlowProducer['add']>>; parent: Finished | undefined; kids: Finished[]; ms: number }[] = [];
  try {
    await Promise.all([kidWorker.waitUntilReady(), parentWorker.waitUntilReady()]);
    for (let f = 0; f < flows; f++) {
      const started = Date.now();
      const flow = await producer.add({
        name: `parent-${f}`, queueName: queue, data: { f },
        children: Array.from({ length: kids }, (_, n) => ({ name: `kid-${f}-${n}`, queueName: `${queue}-kids`, data: { n: n + 1 } })),
      });
      const id = flow.job.id!;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, kWaitMs);
        waiting.set(id, () => { clearTimeout(timer); resolve(); });
        // completed before the listener was set
        void parents.getJob(id).then((j) => { if (j?.finishedOn) waiting.get(id)?.(); });
      });
      const mine = new Set(flow.children!.map((c) => c.job.id!));
      out.push({ flow, parent: parentsDone.get(id), kids: childrenDone.filter((c) => mine.has(c.id)), ms: Date.now() - started });
    }
    return out;
  } finally {
    await Promise.all([kidWorker.close(), parentWorker.close()]);
    await producer.close();
    await parents.close();
  }
}

function suite(label: string, start: () => Promise<Target>) {
  describe(`BullMQ FlowProducer against ${label}`, () => {
    let t: Target;
    before(async () => { t = await start(); });
    after(async () => { await t.stop(); });

    for (const kids of [2, 1]) {
      it(`a parent with ${kids} ${kids === 1 ? 'child' : 'children'} runs after ${kids === 1 ? 'it' : 'both'}, with their return values`, async () => {
        const [r] = await runFlows(t, `flow${kids}`, kids, 1);
        assert.ok(r.parent, `the parent ${r.flow.job.id} did not run within ${kWaitMs} ms`);
        assert.equal(r.kids.length, kids);
        for (const k of r.kids) assert.ok(k.finishedAt <= r.parent.finishedAt, `child ${k.name} finished after the parent ran`);
        const want = Object.fromEntries(r.flow.children!.map((c) => [`bull:flow${kids}-kids:${c.job.id}`, c.job.data.n * 10]));
        assert.deepEqual(r.parent.children, want);
        const parent = await new Queue(`flow${kids}`, { connection: connection(t.ports[0]) });
        try {
          const job = (await parent.getJob(r.flow.job.id!))!;
          assert.equal(job.returnvalue, kids);
          assert.deepEqual(await parent.getJobCounts('completed', 'waiting-children', 'waiting', 'active'),
            { completed: 1, 'waiting-children': 0, waiting: 0, active: 0 });
        } finally {
          await parent.close();
        }
      });
    }

    it(`${kRepeat} one-child flows one after another: every parent runs`, async () => {
      const rs = await runFlows(t, 'flowrep', 1, kRepeat);
      const never = rs.filter((r) => r.parent === undefined).map((r) => r.flow.job.id);
      assert.deepEqual(never, [], `parents that never ran (of ${kRepeat}); ms per flow: ${rs.map((r) => r.ms).join(' ')}`);
      for (const r of rs) assert.deepEqual(Object.values(r.parent!.children!), [10]);
    });
  });
}

suite('PostRESP (unlogged, two instances)', () => postresp('unlogged', 'flow'));
suite('PostRESP (logged, two instances)', () => postresp('logged', 'flow'));
suite('redis-server 7.0', redis);
