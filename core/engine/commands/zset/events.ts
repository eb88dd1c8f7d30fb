/** The sorted-set family's keyspace events that depend on the line and the reply (Redis 7.0's t_zset.c). */
import { eqIgnoreCase, lower, parseI64 } from '../args';
import { parseMpop } from '../collection/args';
import { done, popEvents } from '../events';
import { RespError } from '../../reply';
import type { EventsOf } from '../../write-hook';

/**
 * ZADD: `zincr` with INCR (nil: nothing happened), else `zadd` when a member was added or a
 * score changed. With CH the reply counts both; without, it counts additions only, so 0 leaves
 * an update open (maybe) — except under NX, which never updates.
 */
export const zaddEvents: EventsOf = (emit, db, argv, reply, note) => {
  let incr = false;
  let ch = false;
  let nx = false;
  for (let i = 2; i < argv.length; i++) {
    const o = lower(argv[i]);
    if (o === 'incr') incr = true;
    else if (o === 'ch') ch = true;
    else if (o === 'nx') nx = true;
    else if (o !== 'xx' && o !== 'gt' && o !== 'lt') break;
  }
  if (incr) {
    if (reply !== null) emit(db, 'zincr', argv[1], false);
  } else if (typeof note === 'number') {
    // the note: members added or changed
    if (note > 0) emit(db, 'zadd', argv[1], false);
  } else if (done(reply)) {
    emit(db, 'zadd', argv[1], false);
  } else if (!ch && !nx) {
    emit(db, 'zadd', argv[1], true);
  }
};

/** ZPOPMIN, ZPOPMAX key [count] */
export function zpopEvents(event: string): EventsOf {
  return (emit, db, argv, reply, note) =>
    popEvents(emit, db, argv[1], event, argv.length > 2 ? parseI64(argv[2]) : 1n, reply, true, note);
}

/** ZMPOP: the pop on the key the reply names */
export const zmpopEvents: EventsOf = (emit, db, argv, reply, note) => {
  const p = parseMpop(argv, 1, (a) => eqIgnoreCase(a, 'max'));
  if (!Array.isArray(reply) || p instanceof RespError) return;
  popEvents(emit, db, reply[0] as Buffer, p.where ? 'zpopmax' : 'zpopmin', p.count, reply[1], true, note);
};
