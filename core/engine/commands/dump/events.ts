/** RESTORE's keyspace events (Redis 7.0's cluster.c restoreCommand). */
import type { EventsOf } from '../../write-hook';

/**
 * 'restore' on the key; but a TTL already past (relative 0 < ttl, or ABSTTL in the past) makes
 * no key: 'del' when REPLACE deleted one (the reply does not say: maybe), else nothing.
 */
export const restoreEvents: EventsOf = (emit, db, argv) => {
  const ttl = BigInt(argv[2].toString('latin1'));
  const absttl = argv.slice(4).some((a) => a.toString('latin1').toLowerCase() === 'absttl');
  if (ttl !== 0n && absttl && ttl <= BigInt(Date.now())) emit(db, 'del', argv[1], true);
  else emit(db, 'restore', argv[1], false);
};
