// Runs one test: starts the load workers, drives warm-up / recording / stop through shared
// memory, samples live counters every 250 ms (valkey's SHOW_THROUGHPUT_INTERVAL) for the
// progress line and the throughput-over-time series, then merges the workers' histograms.

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import * as hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import {
  kControlInts, kState, kStateRecording, kStateStop, kStateWarmup, kStatErrors, kStatLatencySumUs, kStatRecorded, kStatReplies,
  kStatsPerWorker, type DoneMessage, type WorkerInit, type WorkerMessage,
} from './messages';
import { threadCount, type HarnessOptions } from './options';
import type { TestSpec } from './workloads';

const kSampleMs = 250;
/** Closed loop after --duration: replies still missing this long after the stop mean a hung server. */
const kStopTimeoutMs = 15_000;

export interface SeriesPoint {
  /** Seconds since recording started. */
  t: number;
  rps: number;
  avgMs: number;
}

export interface TestResult {
  name: string;
  title: string;
  /** Replies recorded. */
  requests: number;
  errors: number;
  firstError: string | null;
  unanswered: number;
  elapsedSec: number;
  rps: number;
  histogram: Histogram;
  series: SeriesPoint[];
  threads: number;
  clients: number;
  startedAt: string;
  /** Why the test cannot be trusted (errors, lost connections), or null. */
  failure: string | null;
}

export interface Progress {
  title: string;
  warmingUp: boolean;
  instRps: number;
  overallRps: number;
  instAvgMs: number;
  overallAvgMs: number;
  recorded: number;
  errors: number;
  elapsedSec: number;
}

export interface RunHooks {
  onProgress?: (p: Progress) => void;
}

const now = (): number => performance.timeOrigin + performance.now();

/**
 * Load workers outlive a test: a new thread per test cost 150-250 ms of start-up here (module
 * loading, hdr-histogram-js) and started every test with a cold JIT.
 */
const pool: Worker[] = [];
let runs = 0;

function takeWorkers(n: number): Worker[] {
  while (pool.length < n) {
    const w = new Worker(join(__dirname, 'worker.js'));
    w.unref();
    pool.push(w);
  }
  return pool.slice(0, n);
}

function discard(w: Worker): void {
  const i = pool.indexOf(w);
  if (i >= 0) pool.splice(i, 1);
  void w.terminate();
}

export async function runTest(o: HarnessOptions, test: TestSpec, hooks: RunHooks = {}): Promise<TestResult> {
  const threads = threadCount(o);
  const control = new SharedArrayBuffer(kControlInts * 4);
  const stats = new SharedArrayBuffer(threads * kStatsPerWorker * 8);
  const ctl = new Int32Array(control);
  const st = new Float64Array(stats);
  const seed = o.seed ?? ((Date.now() ^ (process.pid << 8)) >>> 0);
  const startedAt = new Date().toISOString();
  Atomics.store(ctl, kState, o.warmup > 0 ? kStateWarmup : kStateRecording);

  const workers = takeWorkers(threads);
  const runId = ++runs;
  const inits: WorkerInit[] = [];
  let first = 0;
  for (let i = 0; i < threads; i++) {
    const clients = Math.floor(o.clients / threads) + (i < o.clients % threads ? 1 : 0);
    inits.push({ runId, index: i, options: o, test, firstClient: first, clients, totalClients: o.clients, control, stats, seed });
    first += clients;
  }

  const sum = (slot: number): number => {
    let s = 0;
    for (let i = 0; i < threads; i++) s += st[i * kStatsPerWorker + slot];
    return s;
  };

  return new Promise<TestResult>((resolve) => {
    let ready = 0;
    let recordStart = 0;
    let warmupEnd = 0;
    let stopAt = 0;
    let timer: NodeJS.Timeout | null = null;
    let phaseTimer: NodeJS.Timeout | null = null;
    let settled = false;
    const done: DoneMessage[] = [];
    const series: SeriesPoint[] = [];
    let prev = { t: 0, recorded: 0, latencySum: 0 };

    const finish = (failure: string | null): void => {
      if (settled) return;
      settled = true;
      if (timer !== null) clearInterval(timer);
      if (phaseTimer !== null) clearTimeout(phaseTimer);
      for (const w of workers) {
        w.removeAllListeners('message').removeAllListeners('error').removeAllListeners('exit');
        w.unref();
        if (failure !== null) w.postMessage({ type: 'abort' });
      }
      resolve(assemble(o, test, threads, startedAt, recordStart, done, series, failure, sum(kStatErrors)));
    };

    // Phase changes on their own timers, not on the 250 ms samples: --duration 1 runs 1 s.
    const stop = (): void => {
      Atomics.store(ctl, kState, kStateStop);
      stopAt = now();
    };
    const startRecording = (): void => {
      const t = now();
      Atomics.store(ctl, kState, kStateRecording);
      recordStart = t;
      prev = { t, recorded: sum(kStatRecorded), latencySum: sum(kStatLatencySumUs) };
      if (o.duration > 0) phaseTimer = setTimeout(stop, o.duration * 1000);
    };

    const sample = (): void => {
      const t = now();
      const state = Atomics.load(ctl, kState);
      const warmingUp = state === kStateWarmup;
      const recorded = warmingUp ? sum(kStatReplies) : sum(kStatRecorded);
      const latencySum = sum(kStatLatencySumUs);
      const dt = (t - prev.t) / 1000;
      const instRps = dt > 0 ? (recorded - prev.recorded) / dt : 0;
      const dn = recorded - prev.recorded;
      const instAvgMs = !warmingUp && dn > 0 ? (latencySum - prev.latencySum) / dn / 1000 : 0;
      const since = warmingUp ? t - (warmupEnd - o.warmup * 1000) : t - recordStart;
      if (!warmingUp) series.push({ t: since / 1000, rps: instRps, avgMs: instAvgMs });
      prev = { t, recorded, latencySum };
      hooks.onProgress?.({
        title: test.title,
        warmingUp,
        instRps,
        overallRps: since > 0 ? recorded / (since / 1000) : 0,
        instAvgMs,
        overallAvgMs: recorded > 0 && !warmingUp ? latencySum / recorded / 1000 : 0,
        recorded,
        errors: sum(kStatErrors),
        elapsedSec: since / 1000,
      });
      if (stopAt > 0 && o.rps === 0 && t - stopAt > kStopTimeoutMs) {
        for (const w of workers) discard(w);
        finish(`no reply for ${kStopTimeoutMs / 1000} s after the run ended: the server stopped answering`);
      }
    };

    workers.forEach((w, i) => {
      w.ref();
      w.on('message', (m: WorkerMessage) => {
        if (m.runId !== runId) return;
        if (m.type === 'fatal') finish(m.message);
        else if (m.type === 'ready' && ++ready === threads) {
          const t = now();
          prev = { t, recorded: 0, latencySum: 0 };
          if (o.warmup > 0) {
            warmupEnd = t + o.warmup * 1000;
            phaseTimer = setTimeout(startRecording, o.warmup * 1000);
          } else {
            recordStart = t;
            if (o.duration > 0) phaseTimer = setTimeout(stop, o.duration * 1000);
          }
          timer = setInterval(sample, kSampleMs);
          for (const x of workers) x.postMessage({ type: 'start' });
        } else if (m.type === 'done') {
          done.push(m);
          if (done.length === threads) finish(null);
        }
      });
      w.on('error', (err) => {
        discard(w);
        finish(`load worker failed: ${err.message}`);
      });
      w.on('exit', (code) => {
        discard(w);
        finish(`load worker exited with code ${code}`);
      });
      w.postMessage({ type: 'run', init: inits[i] });
    });
  });
}

function assemble(
  o: HarnessOptions, test: TestSpec, threads: number, startedAt: string, recordStart: number,
  done: DoneMessage[], series: SeriesPoint[], failure: string | null, errorsLive: number,
): TestResult {
  const histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000_000,
    numberOfSignificantValueDigits: o.precision as 1 | 2 | 3 | 4 | 5,
  });
  let lastReply = 0;
  let errors = 0;
  let unanswered = 0;
  let firstError: string | null = null;
  for (const d of done) {
    const h = hdr.decodeFromCompressedBase64(d.histogram);
    histogram.add(h);
    h.destroy();
    lastReply = Math.max(lastReply, d.lastReplyAt);
    errors += d.errors;
    unanswered += d.unanswered;
    firstError ??= d.firstError;
  }
  if (done.length < threads) errors = Math.max(errors, errorsLive);
  const requests = histogram.totalCount;
  const elapsedSec = recordStart > 0 && lastReply > recordStart ? (lastReply - recordStart) / 1000 : 0;
  let why = failure;
  if (why === null && errors > 0) {
    why = `${errors} of ${requests} replies were errors (first: ${firstError ?? '?'})`;
  } else if (why === null && unanswered > 0) {
    why = `${unanswered} requests unanswered after the run (counted at their lateness)`;
  } else if (why === null && requests === 0) {
    why = 'no replies recorded';
  }
  return {
    name: test.name,
    title: test.title,
    requests,
    errors,
    firstError,
    unanswered,
    elapsedSec,
    rps: elapsedSec > 0 ? requests / elapsedSec : 0,
    histogram,
    series,
    threads,
    clients: o.clients,
    startedAt,
    failure: why,
  };
}
