/**
 * The stream family's keyspace events (redis-server 7.0.15's t_stream.c names). XACK and the
 * reads of XPENDING fire nothing; a consumer created on the way (XREADGROUP, XCLAIM,
 * XAUTOCLAIM) fires xgroup-createconsumer, which their replies cannot show: their statements
 * return it (the note), as XADD's trimming and DELCONSUMER's consumer.
 */
import { done } from '../events';
import { eqIgnoreCase } from '../args';
import { keysOf, type CommandSpec } from '../spec';
import type { EventsOf } from '../../write-hook';

/**
 * xadd, then xtrim when a trimming option was given and entries went (the note: 1 trimmed; the
 * reply does not say; maybe without a note)
 */
export const xaddEvents: EventsOf = (emit, db, argv, reply, note) => {
  if (reply === null) return;
  emit(db, 'xadd', argv[1], false);
  if (note === 0) return;
  for (let i = 2; i < argv.length; i++) {
    if (eqIgnoreCase(argv[i], 'maxlen') || eqIgnoreCase(argv[i], 'minid')) return emit(db, 'xtrim', argv[1], note === undefined);
  }
};

/** `event` on the key at `at` when the reply says something was done */
export const whenDoneAt = (event: string, at: number): EventsOf => (emit, db, argv, reply) => {
  if (done(reply)) emit(db, event, argv[at], false);
};

/** `event` on the key at `at` for any non-error reply */
export const alwaysAt = (event: string, at: number): EventsOf => (emit, db, argv) => emit(db, event, argv[at], false);

export const kNoEvents: EventsOf = () => undefined;

/** XGROUP DELCONSUMER: the reply counts pending entries, 0 also when the consumer existed (the note: 1 it did) */
export const delConsumerEvents: EventsOf = (emit, db, argv, reply, note) => {
  if (note === 0) return;
  emit(db, 'xgroup-delconsumer', argv[2], note === undefined && !done(reply));
};

/** XCLAIM / XAUTOCLAIM (key at 1): the claiming consumer was created (the note 1; maybe without one) */
export const claimEvents: EventsOf = (emit, db, argv, _reply, note) => {
  if (note !== 0) emit(db, 'xgroup-createconsumer', argv[1], note === undefined);
};

/**
 * XREADGROUP: the consumer was created in these streams' groups (the note: per key position;
 * maybe for each without one, e.g. after BLOCK waited)
 */
export function readGroupEvents(spec: () => CommandSpec): EventsOf {
  return (emit, db, argv, _reply, note) => {
    const made = Array.isArray(note) ? note : undefined;
    (keysOf(spec(), argv) ?? []).forEach((k, i) => {
      if (made === undefined) emit(db, 'xgroup-createconsumer', k, true);
      else if (made[i] === true) emit(db, 'xgroup-createconsumer', k, false);
    });
  };
}
