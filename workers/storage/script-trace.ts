/**
 * A diagnostic: with POSTRESP_TRACE_SCRIPT_CALLS=FILE, every script call's times are appended to
 * FILE (one line a call, each worker thread its own FILE.<threadId>), to tell where a call's wait
 * went: in the queue for a connection (behind its own client's calls, or others'), or running.
 *
 *   epoch ms queued  start  end  client  sha8  batch-size  attempts
 *
 * (attempts of a call alone: the worker's restarts while it ran, an upper bound; of a batch: its own)
 *
 * Off (the default) it costs one property read per call. Written for BullMQ's job locks
 * (docs/scripting.md "BullMQ's job locks"): a lock set by a call's SET … PX counts down from the
 * redis.call, and a renewal (extendLocks) waits in the queue behind its Worker's other calls.
 */
import { appendFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import type { AtomicRequest } from '../../core/engine/key-store';

const kFile = process.env.POSTRESP_TRACE_SCRIPT_CALLS ? `${process.env.POSTRESP_TRACE_SCRIPT_CALLS}.${threadId}` : undefined;

export interface TracedCall { req: AtomicRequest; queuedAt?: number }

let lines: string[] = [];
let flushSoon = false;

const flush = (): void => {
  flushSoon = false;
  appendFileSync(kFile as string, lines.join(''));
  lines = [];
};

/** the call entered the queue */
export function traceQueued(q: TracedCall): void {
  if (kFile !== undefined) q.queuedAt = Date.now();
}

/** the calls of one transaction (one call alone, or a batch) ran from `start` until now, in `attempts` */
export function traceRan(calls: readonly TracedCall[], ran: number, start: number, attempts: number): void {
  if (kFile === undefined) return;
  const end = Date.now();
  for (let i = 0; i < ran; i++) {
    const { req, queuedAt } = calls[i];
    const sha = (req.share?.check ?? req.share?.store?.sha ?? '-').slice(0, 8);
    const client = (req.chain as { id?: number } | undefined)?.id ?? -1;
    lines.push(`${queuedAt ?? 0} ${start} ${end} ${client} ${sha} ${calls.length} ${attempts}\n`);
  }
  if (!flushSoon) {
    flushSoon = true;
    setTimeout(flush, 100).unref();
  }
}

export const tracing = kFile !== undefined;
