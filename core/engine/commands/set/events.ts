/** The set family's keyspace events that depend on the line and the reply (Redis 7.0's t_set.c). */
import { parseI64 } from '../args';
import { popEvents } from '../events';
import type { EventsOf } from '../../write-hook';

/** SPOP key [count] */
export const spopEvents: EventsOf = (emit, db, argv, reply) =>
  popEvents(emit, db, argv[1], 'spop', argv.length > 2 ? parseI64(argv[2]) : undefined, reply);

/**
 * SMOVE src dst member (1): `srem` on the source, `del` if that emptied it, `sadd` on the
 * destination unless it held the member already — the reply shows neither (maybe). Nothing when
 * src = dst.
 */
export const smoveEvents: EventsOf = (emit, db, argv, reply) => {
  if (reply !== 1 || argv[1].equals(argv[2])) return;
  emit(db, 'srem', argv[1], false);
  emit(db, 'del', argv[1], true);
  emit(db, 'sadd', argv[2], true);
};
