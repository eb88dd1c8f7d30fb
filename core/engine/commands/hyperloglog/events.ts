/** The HyperLogLog family's keyspace events (Redis 7.0's hyperloglog.c). */
import type { EventsOf } from '../../write-hook';

/** PFMERGE: `pfadd` on the destination only, whatever the sources hold (Redis calls it a mass add). */
export const pfmergeEvents: EventsOf = (emit, db, argv) => emit(db, 'pfadd', argv[1], false);

/** PFDEBUG is a write command (TODENSE rewrites the value) but Redis fires nothing for it. */
export const kNoEvents: EventsOf = () => undefined;
