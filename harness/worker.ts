// Load worker thread: for each test it is given, runs its share of the clients (connections)
// and reports an HDR histogram of latencies in microseconds. Workers live for the whole process
// (run.ts keeps a pool), so the JIT stays warm from one test to the next.
//
// Closed loop (default, valkey-benchmark's method): a client sends a batch of -P commands, waits
// for all its replies, records (reply time − send time) for each, sends the next batch.
// Open loop (--rps): each client sends batches on a fixed schedule (rate / clients) whether or
// not replies came back; each reply is recorded as (reply time − the batch's INTENDED send time),
// so a stalled server shows up in the percentiles instead of silently slowing the sender
// (coordinated omission, Gil Tene; the wrk2 method).

import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import * as hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import { ClosedLoopClient, OpenLoopClient, schedule, type Client, type RunContext } from './clients';
import {
  kIssued, kState, kStatErrors, kStatLatencySumUs, kStatRecorded, kStatsPerWorker,
  type MainMessage, type WorkerInit, type WorkerMessage,
} from './messages';
import type { HarnessOptions } from './options';

const kMaxLatencyUs = 60_000_000;
const kConnectBurst = 64;

function post(m: WorkerMessage): void {
  parentPort?.postMessage(m);
}

/** One test's state in this worker: options, shared counters, histogram, clients. */
class LoadRun implements RunContext {
  readonly o: HarnessOptions;
  readonly control: Int32Array;
  readonly stats: Float64Array;
  readonly statBase: number;
  readonly histogram: Histogram;
  readonly budget: number;
  readonly clients: Client[] = [];
  lastReplyAt = 0;
  firstError: string | null = null;
  unanswered = 0;
  private ready = 0;
  private finished = 0;
  private over = false;

  constructor(readonly init: WorkerInit) {
    this.o = init.options;
    this.control = new Int32Array(init.control);
    this.stats = new Float64Array(init.stats);
    this.statBase = init.index * kStatsPerWorker;
    this.histogram = hdr.build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: kMaxLatencyUs,
      numberOfSignificantValueDigits: this.o.precision as 1 | 2 | 3 | 4 | 5,
    });
    this.budget = this.o.duration > 0 ? Infinity : this.o.requests;
    this.connect(0);
  }

  /** valkey's createMissingClients: 64 connections, then 50 ms for the listen backlog. */
  private connect(from: number): void {
    const open = this.o.rps > 0;
    const to = Math.min(this.init.clients, from + kConnectBurst);
    for (let i = from; i < to; i++) {
      const id = this.init.firstClient + i;
      this.clients.push(open ? new OpenLoopClient(this, id) : new ClosedLoopClient(this, id));
    }
    if (to < this.init.clients) setTimeout(() => { if (!this.over) this.connect(to); }, 50);
  }

  /** Records `count` replies of latency `ms`. */
  record(ms: number, count: number, now: number): void {
    let us = Math.round(ms * 1000);
    if (us < 1) us = 1;
    else if (us > kMaxLatencyUs) us = kMaxLatencyUs;
    this.histogram.recordValueWithCount(us, count);
    this.stats[this.statBase + kStatRecorded] += count;
    this.stats[this.statBase + kStatLatencySumUs] += us * count;
    this.lastReplyAt = now;
  }

  /** Takes `commands` requests from the shared -n budget; false when it is spent. */
  takeBudget(commands: number): boolean {
    if (this.budget === Infinity) return true;
    return Atomics.add(this.control, kIssued, commands) < this.budget;
  }

  state(): number {
    return Atomics.load(this.control, kState);
  }

  clientReady(): void {
    if (++this.ready === this.init.clients) post({ type: 'ready', runId: this.init.runId });
  }

  start(): void {
    const origin = performance.now();
    for (const c of this.clients) c.begin(origin);
    if (this.o.rps > 0) schedule(this, this.clients as OpenLoopClient[]);
  }

  clientFinished(): void {
    if (++this.finished < this.init.clients || this.over) return;
    this.over = true;
    post({
      type: 'done',
      runId: this.init.runId,
      histogram: hdr.encodeIntoCompressedBase64(this.histogram),
      lastReplyAt: this.lastReplyAt === 0 ? 0 : performance.timeOrigin + this.lastReplyAt,
      errors: this.stats[this.statBase + kStatErrors],
      firstError: this.firstError,
      unanswered: this.unanswered,
    });
    this.histogram.destroy();
  }

  fatal(message: string): void {
    if (this.over) return;
    this.over = true;
    post({ type: 'fatal', runId: this.init.runId, message });
    this.abort();
  }

  abort(): void {
    this.over = true;
    for (const c of this.clients) c.close();
  }

  live(): boolean {
    return current === this;
  }

  target(): string {
    return this.o.socket !== null ? `Node ${this.o.socket}` : `Node ${this.o.host}:${this.o.port}`;
  }
}

let current: LoadRun | null = null;

parentPort?.on('message', (m: MainMessage) => {
  switch (m.type) {
    case 'run':
      current?.abort();
      current = new LoadRun(m.init);
      break;
    case 'start':
      current?.start();
      break;
    case 'abort':
      current?.abort();
      current = null;
      break;
  }
});
