/**
 * BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout | BRPOPLPUSH source destination timeout
 * — LMOVE that blocks up to timeout seconds (0 = forever) while source is empty; nil on timeout.
 * The push to destination is in the pop's transaction (l_move through b_lmove).
 * https://redis.io/commands/blmove/
 */
import { Err } from '../../resp-errors';
import { RespError, kNullArray } from '../../reply';
import { encodeBufferArray, nowArg } from '../exec';
import { blockingCommand, served } from '../blocking/pop';
import { parseTimeout } from '../blocking/timeout';
import type { Session } from '../../session';
import type { EventsOf } from '../../write-hook';
import { lmoveEvents, rpoplpushEvents } from './events';
import { side } from './lmove';
import { kListSql } from './sql';

function plan(s: Session, src: Buffer, dst: Buffer, fromLeft: boolean, toLeft: boolean, timeout: Buffer) {
  const timeoutMs = parseTimeout(timeout);
  if (timeoutMs instanceof RespError) return timeoutMs;
  const keys = [src];
  const encoded = encodeBufferArray(keys);
  return {
    timeoutMs,
    plan: {
      // Redis 7.0 times a blocked BLMOVE out with a null array, yet answers nil inside MULTI
      keys, dest: dst, stmt: kListSql.bmove, timeoutReply: kNullArray, emptyReply: null,
      values: (seq: string | null, block: boolean) => [String(s.db), encoded, dst, fromLeft ? 'true' : 'false', toLeft ? 'true' : 'false',
        nowArg(), seq, block ? 'true' : 'false'],
      reply: (rows: unknown[][]) => served(rows)[0][2] as Buffer,
    },
  };
}

/** LMOVE's events when an element moved: a timeout's reply is a null array here, not nil */
const onlyMoved = (events: EventsOf): EventsOf => (emit, db, argv, reply, note) => {
  if (Buffer.isBuffer(reply)) events(emit, db, argv, reply, note);
};

const shared = {
  flags: ['write', 'denyoom', 'noscript', 'blocking'] as const, keys: { first: 1, last: 2, step: 1 }, acl: ['write', 'list', 'slow'],
  group: 'list', complexity: 'O(1)',
};

export const blmove = blockingCommand({
  ...shared, name: 'blmove', arity: 6, since: '6.2.0', events: onlyMoved(lmoveEvents),
  summary: 'Pops an element from a list, pushes it to another list and returns it. Blocks until an element is available otherwise. Deletes the list if the last element was moved.',
}, (s, argv) => {
  const from = side(argv[3]);
  const to = side(argv[4]);
  if (from === undefined || to === undefined) return Err.syntax;
  return plan(s, argv[1], argv[2], from, to, argv[5]);
});

export const brpoplpush = blockingCommand({
  ...shared, name: 'brpoplpush', arity: 4, since: '2.2.0', events: onlyMoved(rpoplpushEvents),
  summary: 'Pops an element from a list, pushes it to another list and returns it. Block until an element is available otherwise. Deletes the list if the last element was popped.',
}, (s, argv) => plan(s, argv[1], argv[2], false, true, argv[3]));
