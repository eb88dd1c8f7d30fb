/**
 * Keyspace events shared by the families' declarations (CommandSpec.events): what Redis 7.0
 * fires for a command, derived from its line and its reply. Written against redis-server
 * 7.0.15's notifications (test/differential/write-events.test.ts drives every write command).
 * The reply is never an error here: an error fires nothing.
 */
import { NullArray, RespSet, type Reply } from '../reply';
import type { Emit, EventsOf } from '../write-hook';
import type { Outcome } from '../pending-reply';

/** The reply says the command did something: OK, 1, a count above 0, a value, a non-empty array. */
export function done(r: Reply): boolean {
  if (r === null || r instanceof NullArray) return false;
  if (typeof r === 'number') return r > 0;
  if (typeof r === 'bigint') return r > 0n;
  if (Array.isArray(r)) return r.length > 0;
  if (r instanceof RespSet) return r.items.length > 0;
  return true;
}

/** `event` on the key (argv[1]) when the reply says it was done (SETNX, SADD, LPUSHX, PERSIST…). */
export function whenDone(event: string): EventsOf {
  return (emit, db, argv, reply) => {
    if (done(reply)) emit(db, event, argv[1], false);
  };
}

/**
 * `del` when the note says so (1: the key went, the destination existed…), nothing when it says
 * not (0), and maybe without a note (the command ran where none is kept).
 */
function delIf(emit: Emit, db: number, key: Buffer, note: Outcome | undefined): void {
  if (note === undefined) emit(db, 'del', key, true);
  else if (note === 1) emit(db, 'del', key, false);
}

/**
 * HDEL, SREM, ZREM, LREM, ZREMRANGEBY…: `event` when something went, then `del` when that emptied
 * the key (the note: the reply is a count, not what is left).
 */
export function whenRemoved(event: string): EventsOf {
  return (emit, db, argv, reply, note) => {
    if (!done(reply)) return;
    emit(db, event, argv[1], false);
    delIf(emit, db, argv[1], note);
  };
}

/**
 * SINTERSTORE, ZUNIONSTORE, ZRANGESTORE…: `event` on the destination (argv[1]) when the result
 * has members; an empty result deletes it, and Redis fires `del` only if it existed (the note).
 */
export function stored(event: string): EventsOf {
  return (emit, db, argv, reply, note) => {
    if (done(reply)) emit(db, event, argv[1], false);
    else delIf(emit, db, argv[1], note);
  };
}

/** Elements a pop replied with: flat [m, s, m, s…] pairs count once each when `pairs`. */
function poppedCount(reply: Reply, pairs: boolean): number {
  const items = Array.isArray(reply) ? reply : reply instanceof RespSet ? reply.items : [];
  return pairs && !Array.isArray(items[0]) ? items.length / 2 : items.length;
}

/**
 * A pop from `key`: `event`, then `del` when it took the last element (the note 1) — without a
 * note, certain when it got fewer than it asked for, else maybe. count undefined: the
 * single-element form (its reply is the element, or nil).
 */
export function popEvents(emit: Emit, db: number, key: Buffer, event: string, count: bigint | undefined,
  reply: Reply, pairs = false, note?: Outcome): void {
  if (count === undefined ? reply === null || reply instanceof NullArray : !done(reply)) return;
  emit(db, event, key, false);
  if (note !== undefined) delIf(emit, db, key, note);
  else emit(db, 'del', key, count === undefined || BigInt(poppedCount(reply, pairs)) >= count);
}
