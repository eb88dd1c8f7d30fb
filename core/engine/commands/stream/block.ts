/**
 * The seam for XREAD / XREADGROUP BLOCK (docs/streams.md "What is left"). A BLOCK read that finds
 * data answers at once, and inside MULTI (or a script) it never blocks: both are done. What is not
 * done is waiting: until the waiter machinery of issue 15 (blocked clients woken through the
 * committed-write hook and the bus, core/bus/) registers itself with `setStreamBlocker`, a BLOCK
 * read that finds nothing answers as its timeout would: a null array.
 *
 * A blocker gets the keys the read waits on (db, names), the timeout (ms, 0 = forever) and
 * `retry`, which runs the same read again with '$' already resolved to the ids seen the first
 * time, and resolves to its reply, or undefined while there is still nothing to serve (retry
 * also answers NOGROUP / WRONGTYPE if the group or the key went meanwhile, as Redis does).
 */
import { kNullArray, type Reply } from '../../reply';
import type { Session } from '../../session';

export interface StreamWait {
  db: number;
  keys: Buffer[];
  timeoutMs: number;
  retry(): PromiseLike<Reply | undefined>;
}

export type StreamBlocker = (s: Session, wait: StreamWait) => Reply | PromiseLike<Reply>;

let blocker: StreamBlocker = () => kNullArray;

/** Installed by the blocking machinery; returns the previous one (tests restore it). */
export function setStreamBlocker(b: StreamBlocker): StreamBlocker {
  const prev = blocker;
  blocker = b;
  return prev;
}

export function blockOnStreams(s: Session, wait: StreamWait): Reply | PromiseLike<Reply> {
  return blocker(s, wait);
}
