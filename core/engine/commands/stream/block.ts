/**
 * XREAD / XREADGROUP BLOCK (docs/streams.md, docs/blocking.md). A BLOCK read that finds data
 * answers at once; inside MULTI or a script it never blocks. Otherwise the client is held from
 * the call on (its later commands wait, as Redis runs nothing of a blocked client), and when the
 * first read found nothing the call becomes a BlockedCall on the stream keys: woken through the
 * committed-write hook and the bus like the pops (any worker, any instance), each wake-up runs
 * `retry`, the same read with '$' already resolved to the ids seen when it blocked.
 *
 * XREAD takes nothing from other readers, so it registers no row in blocked_waiters: every woken
 * XREAD is served. XREADGROUP `>` readers of one group take new entries from each other: their
 * first read registers them in blocked_waiters in the group's queue, and x_readgroup serves the
 * first of the queue (docs/streams.md#block), whatever order their wake-ups arrive in.
 */
import { Noted, PendingReply } from '../../pending-reply';
import { kNullArray, RespError, type Reply } from '../../reply';
import type { Session } from '../../session';
import { BlockedCall, type BlockingTarget } from '../blocking/blocked-call';

export interface StreamWait {
  db: number;
  keys: Buffer[];
  timeoutMs: number;
  /** the waiter number the first read registered (XREADGROUP), null for none */
  waiter?: () => string | null;
  /**
   * the read again as waiter `seq`: its reply (with its note) and a key left with entries for the
   * next waiter, or undefined while there is nothing to serve
   */
  retry(seq: string | null): PromiseLike<{ reply: Reply | Noted; more?: Buffer } | undefined>;
}

/** A reply and the note its PendingReply kept (XREADGROUP's consumers made), for the write hook */
export function withNote(p: PendingReply): Reply | Noted {
  return p.note === undefined ? p.value : new Noted(p.value, p.note);
}

function streamTarget(w: StreamWait): BlockingTarget {
  return {
    db: w.db, keys: w.keys, timeoutReply: kNullArray,
    attempt(_s, seq, done) {
      void w.retry(seq).then((r) => {
        if (r === undefined) return done({ seq: null });
        // an error (the key or group gone) ends the call as unserved: its waiter rows went with it
        if (r.reply instanceof RespError) return done({ error: r.reply });
        done({ served: r.reply, key: r.more, rest: r.more === undefined ? 0 : 1 });
      });
    },
  };
}

/**
 * The reply of a BLOCK read: its first read's when that serves something, else a blocked call's
 * (`wait`). `start` gives the first read and the ids a retry reads after: XREAD resolves '$' in a
 * statement of its own, sent with the first read in one tick, before any later write of another
 * client is queued on the lane.
 * The client's later commands wait from now on.
 */
export function readOrBlock(s: Session, start: PromiseLike<{ first: PendingReply; wait: StreamWait }>): PendingReply {
  const out = new PendingReply();
  s.holdWhile?.(out);
  void start.then(({ first, wait }) => first.then((reply) => {
    if (reply !== kNullArray) return out.settle(withNote(first));
    void new BlockedCall(s, s.server.blocking, streamTarget(wait), wait.timeoutMs, out, wait.waiter?.() ?? null);
  }));
  return out;
}
