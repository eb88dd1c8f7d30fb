/**
 * A bus "instance" for benchmarks: the primary's BusHub (+ PgLink when a database is given) in
 * this thread and real worker threads, each with a MessageBus, joined like PostRESP's (ports to
 * the hub, one BroadcastChannel). Each worker plays a role:
 *
 *   pub   publishes `rate` messages/s of `size` bytes for `seconds` (open loop, 1 ms tick); the
 *         first 8 bytes carry hrtime in µs (CLOCK_MONOTONIC: comparable across processes here)
 *   sub   `subscribers` subscriptions to the channel; records publish→delivery latency of each
 *         delivery in an HDR histogram; reports when `expect` deliveries arrived (or timeout)
 */
import { MessageChannel, Worker, isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import * as hdr from 'hdr-histogram-js';
import { busChannelName, MessageBus } from '../../core/bus/bus';
import { BusHub } from '../../core/bus/hub';
import type { BusToHub, HubToBus } from '../../core/bus/messages';
import { PgLink } from '../../core/bus/pg-link';

export type Role =
  | { kind: 'pub'; channel: string; rate: number; seconds: number; size: number; burst?: number }
  | { kind: 'sub'; channel: string; subscribers: number; expect: number; timeoutMs: number }
  | { kind: 'idle' };

export interface SubResult { got: number; p50: number; p99: number; p999: number; max: number; elapsedMs: number }

export interface BusNode {
  link?: PgLink;
  hub: BusHub;
  /** resolves when every sub role subscribed (and, with a link, other instances acknowledged) */
  ready: Promise<void>;
  /** starts the pub roles; resolves with every sub role's result */
  run(): Promise<SubResult[]>;
  close(): Promise<void>;
}

const nowUs = (): number => Number(process.hrtime.bigint()) / 1000;

export async function startBusNode(roles: Role[], db?: { url: string; schema: string; startupOptions: string }): Promise<BusNode> {
  const link = db ? new PgLink({ ...db, log: (l) => process.stderr.write(`${l}\n`) }) : undefined;
  const instance = link?.instance ?? `bench${process.pid}`;
  const hub = new BusHub({ log: (l) => process.stderr.write(`${l}\n`) }, link); // hears what start() loads
  await link?.start();
  const workers: Worker[] = [];
  const ports: MessagePort[] = [];
  const readies: Promise<void>[] = [];
  const results: Promise<SubResult | null>[] = [];
  roles.forEach((role, w) => {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1);
    port1.on('message', (m: BusToHub) => hub.onMessage(w, port1, m));
    const worker = new Worker(__filename, { workerData: { busNode: true, role, index: w, channel: busChannelName(instance), port: port2 }, transferList: [port2] });
    workers.push(worker);
    readies.push(new Promise((r) => worker.once('message', () => r())));
    results.push(new Promise((r) => worker.on('message', (m: { result?: SubResult; done?: boolean }) => {
      if (m.result) r(m.result);
      else if (m.done && role.kind !== 'sub') r(null);
    })));
    if (role.kind === 'idle') worker.once('online', () => undefined);
  });
  return {
    link, hub,
    ready: Promise.all(readies).then(() => undefined),
    async run() {
      for (const w of workers) w.postMessage('start');
      return (await Promise.all(results)).filter((r): r is SubResult => r !== null);
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
      for (const p of ports) p.close();
      hub.close();
      await link?.close();
    },
  };
}

function workerMain(init: { role: Role; index: number; channel: string; port: MessagePort }): void {
  const bus = new MessageBus(init.port, init.index, init.channel);
  init.port.on('message', (m: HubToBus) => bus.onHubMessage(m));
  const role = init.role;
  const started = new Promise<void>((r) => parentPort!.once('message', () => r()));
  if (role.kind === 'idle') {
    void bus.ready.then(() => parentPort!.postMessage({ ready: true }));
    void started.then(() => parentPort!.postMessage({ done: true }));
    return;
  }
  if (role.kind === 'pub') {
    void bus.ready.then(() => parentPort!.postMessage({ ready: true }));
    void started.then(() => {
      const channel = Buffer.from(role.channel);
      const total = role.rate * role.seconds;
      const t0 = nowUs();
      let sent = 0;
      const tick = setInterval(() => {
        const due = Math.min(total, Math.floor(((nowUs() - t0) / 1e6) * role.rate));
        while (sent < due) {
          const m = Buffer.allocUnsafe(role.size);
          m.fill(0x61, 8);
          m.writeDoubleLE(nowUs(), 0);
          bus.publish(channel, m);
          sent++;
        }
        if (sent >= total) {
          clearInterval(tick);
          parentPort!.postMessage({ done: true });
        }
      }, 1);
    });
    return;
  }
  const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });
  let got = 0;
  let first = 0;
  let reported = false;
  const report = () => {
    if (reported) return;
    reported = true;
    parentPort!.postMessage({ result: { got, p50: h.getValueAtPercentile(50), p99: h.getValueAtPercentile(99), p999: h.getValueAtPercentile(99.9), max: h.maxValue, elapsedMs: (nowUs() - first) / 1000 } });
  };
  const sub = {
    deliver: (_k: string, _c: Buffer, m: Buffer) => {
      const t = nowUs();
      if (got === 0) first = t;
      h.recordValue(Math.max(1, Math.round(t - m.readDoubleLE(0))));
      if (++got === role.expect) report();
      return true;
    },
  };
  const subs = Array.from({ length: role.subscribers }, () => ({ deliver: sub.deliver }));
  void Promise.all(subs.map((s) => bus.subscribe('c', Buffer.from(role.channel), s))).then(() => parentPort!.postMessage({ ready: true }));
  void started.then(() => setTimeout(report, role.timeoutMs).unref());
  setInterval(() => undefined, 1000); // terminate() ends it
}

if (!isMainThread && workerData?.busNode) workerMain(workerData);
