/** The set family's keyspace events that depend on the line and the reply (Redis 7.0's t_set.c). */
import { parseI64 } from '../args';
import { popEvents } from '../events';
import type { EventsOf } from '../../write-hook';

/** SPOP key [count] */
export const spopEvents: EventsOf = (emit, db, argv, reply, note) =>
  popEvents(emit, db, argv[1], 'spop', argv.length > 2 ? parseI64(argv[2]) : undefined, reply, false, note);

/**
 * SMOVE src dst member (1): `srem` on the source, `del` if that emptied it (note bit 1), `sadd`
 * on the destination unless it held the member already (note bit 2); maybe both without a note.
 * Nothing when src = dst.
 */
export const smoveEvents: EventsOf = (emit, db, argv, reply, note) => {
  if (reply !== 1 || argv[1].equals(argv[2])) return;
  const bits = typeof note === 'number' ? note : undefined;
  emit(db, 'srem', argv[1], false);
  if (bits === undefined || (bits & 1) !== 0) emit(db, 'del', argv[1], bits === undefined);
  if (bits === undefined || (bits & 2) !== 0) emit(db, 'sadd', argv[2], bits === undefined);
};
