/** The list family's keyspace events that depend on the line and the reply (Redis 7.0's t_list.c). */
import { eqIgnoreCase, parseI64 } from '../args';
import { parseMpop } from '../collection/args';
import { popEvents } from '../events';
import { RespError } from '../../reply';
import type { EventsOf } from '../../write-hook';

/** LPOP, RPOP key [count] */
export function listPopEvents(event: string): EventsOf {
  return (emit, db, argv, reply, note) =>
    popEvents(emit, db, argv[1], event, argv.length > 2 ? parseI64(argv[2]) : undefined, reply, false, note);
}

/**
 * LMOVE, RPOPLPUSH: Redis fires the push on the destination first, then the pop on the source,
 * then `del` when that was the source's last element (the note 1; maybe without one).
 */
function moveEvents(fromLeft: (argv: Buffer[]) => boolean, toLeft: (argv: Buffer[]) => boolean): EventsOf {
  return (emit, db, argv, reply, note) => {
    if (reply === null) return;
    emit(db, toLeft(argv) ? 'lpush' : 'rpush', argv[2], false);
    emit(db, fromLeft(argv) ? 'lpop' : 'rpop', argv[1], false);
    if (!argv[1].equals(argv[2]) && note !== 0) emit(db, 'del', argv[1], note === undefined);
  };
}

export const lmoveEvents = moveEvents((a) => eqIgnoreCase(a[3], 'left'), (a) => eqIgnoreCase(a[4], 'left'));
export const rpoplpushEvents = moveEvents(() => false, () => true);

/** LMPOP: the pop on the key the reply names */
export const lmpopEvents: EventsOf = (emit, db, argv, reply, note) => {
  const p = parseMpop(argv, 1, (a) => eqIgnoreCase(a, 'left'));
  if (!Array.isArray(reply) || p instanceof RespError) return;
  popEvents(emit, db, reply[0] as Buffer, p.where ? 'lpop' : 'rpop', p.count, reply[1], false, note);
};

/**
 * LTRIM answers OK whether or not the key exists: the note says 0 missing (nothing), 1 trimmed
 * (`ltrim`), 2 trimmed to nothing (`ltrim`, `del`); without it both are maybe.
 */
export const ltrimEvents: EventsOf = (emit, db, argv, _reply, note) => {
  if (note === 0) return;
  emit(db, 'ltrim', argv[1], note === undefined);
  if (note !== 1) emit(db, 'del', argv[1], note === undefined);
};
