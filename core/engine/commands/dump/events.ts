/** RESTORE's keyspace events (Redis 7.0's cluster.c restoreCommand). */
import type { EventsOf } from '../../write-hook';

/** restore_key's statuses that reach the events (dump/functions.ts): the note */
const kRestored = 1;
const kPastDeleted = 4;

/**
 * 'restore' on the key; but a TTL already past (ABSTTL in the past) makes no key: 'del' when
 * REPLACE deleted one (the note: restore_key's status 4), else nothing (5). Without a note, the
 * TTL is judged by this clock and the 'del' is a maybe.
 */
export const restoreEvents: EventsOf = (emit, db, argv, _reply, note) => {
  if (note !== undefined) {
    if (note === kRestored) emit(db, 'restore', argv[1], false);
    else if (note === kPastDeleted) emit(db, 'del', argv[1], false);
    return;
  }
  const ttl = BigInt(argv[2].toString('latin1'));
  const absttl = argv.slice(4).some((a) => a.toString('latin1').toLowerCase() === 'absttl');
  if (ttl !== 0n && absttl && ttl <= BigInt(Date.now())) emit(db, 'del', argv[1], true);
  else emit(db, 'restore', argv[1], false);
};
