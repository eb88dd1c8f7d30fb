// What the harness's main thread and its load workers say to each other, and the layout of the
// shared memory they both read without messages (run state, request budget, live counters).

import type { HarnessOptions } from './options';
import type { TestSpec } from './workloads';

/** Int32Array over `control`: */
export const kState = 0; // one of the states below, written by the main thread
export const kIssued = 1; // requests issued while recording, against the -n budget
export const kControlInts = 2;

export const kStateWarmup = 0;
export const kStateRecording = 1;
export const kStateStop = 2;

/** Float64Array over `stats`, kStatsPerWorker slots per worker, each written by its worker only: */
export const kStatRecorded = 0; // replies recorded in the histogram
export const kStatErrors = 1; // error replies (recording or not)
export const kStatLatencySumUs = 2; // sum of recorded latencies
export const kStatReplies = 3; // all replies, warm-up included
export const kStatsPerWorker = 4;

export interface WorkerInit {
  /** Tags every message of this test, so a late message of an aborted test is ignored. */
  runId: number;
  index: number;
  options: HarnessOptions;
  test: TestSpec;
  /** Global index of this worker's first client and how many it runs. */
  firstClient: number;
  clients: number;
  totalClients: number;
  control: SharedArrayBuffer;
  stats: SharedArrayBuffer;
  /** Seed of this run; each client derives its own. */
  seed: number;
}

/** main → worker: set up a test's clients (answered by 'ready' or 'fatal'), start, abort. */
export interface RunMessage {
  type: 'run';
  init: WorkerInit;
}

export interface StartMessage {
  type: 'start';
}

export interface AbortMessage {
  type: 'abort';
}

export type MainMessage = RunMessage | StartMessage | AbortMessage;

/** worker → main */
export interface ReadyMessage {
  type: 'ready';
  runId: number;
}

export interface FatalMessage {
  type: 'fatal';
  runId: number;
  message: string;
}

export interface DoneMessage {
  type: 'done';
  runId: number;
  /** hdr-histogram-js compressed base64, microseconds. */
  histogram: string;
  /** performance.timeOrigin + now() of the last recorded reply; 0 if none. */
  lastReplyAt: number;
  errors: number;
  firstError: string | null;
  /** Open loop: requests still unanswered when the drain timeout expired. */
  unanswered: number;
}

export type WorkerMessage = ReadyMessage | FatalMessage | DoneMessage;
