/**
 * XREAD / XREADGROUP BLOCK (docs/streams.md, docs/blocking.md). A BLOCK read that finds data
 * answers at once; inside MULTI or a script it never blocks. Otherwise the client is held from
 * the call on (its later commands wait, as Redis runs nothing of a blocked client), and when the
 * first read found nothing the call becomes a BlockedCall on the stream keys: woken through the
 * committed-write hook and the bus like the pops (any worker, any instance), each wake-up runs
 * `retry`, the same read with '$' already resolved to the ids seen when it blocked.
 *
 * Reads take nothing from other readers, so stream waiters register no row in blocked_waiters:
 * every woken XREAD is served. XREADGROUP `>` readers of one group compete for new entries in
 * whatever order their retries reach Postgres (Redis: in blocking order).
 */
import { Noted, PendingReply } from '../../pending-reply';
import { kNullArray, type Reply } from '../../reply';
import type { Session } from '../../session';
import { BlockedCall, type BlockingTarget } from '../blocking/blocked-call';

export interface StreamWait {
  db: number;
  keys: Buffer[];
  timeoutMs: number;
  /** the read again: its reply (with its note), or undefined while there is nothing to serve */
  retry(): PromiseLike<Reply | Noted | undefined>;
}

/** A reply and the note its PendingReply kept (XREADGROUP's consumers made), for the write hook */
export function withNote(p: PendingReply): Reply | Noted {
  return p.note === undefined ? p.value : new Noted(p.value, p.note);
}

function streamTarget(w: StreamWait): BlockingTarget {
  return {
    db: w.db, keys: w.keys, timeoutReply: kNullArray,
    attempt(_s, _seq, done) {
      void w.retry().then((r) => done(r === undefined ? { seq: null } : { served: r, rest: 0 }));
    },
  };
}

/**
 * The reply of a BLOCK read: its first read's when that serves something, else a blocked call's
 * (`wait`). `start` runs the first read, after resolving '$' (XREAD) in a statement of its own:
 * the ids are taken when the call starts, before any later write of another client is queued.
 * The client's later commands wait from now on.
 */
export function readOrBlock(s: Session, start: PromiseLike<{ first: PendingReply; wait: StreamWait }>): PendingReply {
  const out = new PendingReply();
  s.holdWhile?.(out);
  void start.then(({ first, wait }) => first.then((reply) => {
    if (reply !== kNullArray) return out.settle(withNote(first));
    void new BlockedCall(s, s.server.blocking, streamTarget(wait), wait.timeoutMs, out);
  }));
  return out;
}
