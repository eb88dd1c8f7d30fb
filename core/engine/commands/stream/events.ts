/**
 * The stream family's keyspace events (redis-server 7.0.15's t_stream.c names). XACK and the
 * reads of XPENDING fire nothing; a consumer created on the way (XREADGROUP, XCLAIM,
 * XAUTOCLAIM) fires xgroup-createconsumer, which their replies cannot show: maybe.
 */
import { done } from '../events';
import { eqIgnoreCase } from '../args';
import { keysOf, type CommandSpec } from '../spec';
import type { EventsOf } from '../../write-hook';

/** xadd, then xtrim when a trimming option was given (the reply does not say what went) */
export const xaddEvents: EventsOf = (emit, db, argv, reply) => {
  if (reply === null) return;
  emit(db, 'xadd', argv[1], false);
  for (let i = 2; i < argv.length; i++) {
    if (eqIgnoreCase(argv[i], 'maxlen') || eqIgnoreCase(argv[i], 'minid')) return emit(db, 'xtrim', argv[1], true);
  }
};

/** `event` on the key at `at` when the reply says something was done */
export const whenDoneAt = (event: string, at: number): EventsOf => (emit, db, argv, reply) => {
  if (done(reply)) emit(db, event, argv[at], false);
};

/** `event` on the key at `at` for any non-error reply */
export const alwaysAt = (event: string, at: number): EventsOf => (emit, db, argv) => emit(db, event, argv[at], false);

export const kNoEvents: EventsOf = () => undefined;

/** XGROUP DELCONSUMER: the reply counts pending entries, 0 also when the consumer existed */
export const delConsumerEvents: EventsOf = (emit, db, argv, reply) =>
  emit(db, 'xgroup-delconsumer', argv[2], !done(reply));

/** XCLAIM / XAUTOCLAIM (key at 1): the claiming consumer may have been created */
export const claimEvents: EventsOf = (emit, db, argv) => emit(db, 'xgroup-createconsumer', argv[1], true);

/** XREADGROUP: the consumer may have been created in each stream's group */
export function readGroupEvents(spec: () => CommandSpec): EventsOf {
  return (emit, db, argv) => {
    for (const k of keysOf(spec(), argv) ?? []) emit(db, 'xgroup-createconsumer', k, true);
  };
}
