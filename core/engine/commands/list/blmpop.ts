/**
 * BLMPOP timeout numkeys key [key …] LEFT|RIGHT [COUNT count] — LMPOP that blocks up to timeout
 * seconds (0 = forever) while every list is empty; a null array on timeout.
 * https://redis.io/commands/blmpop/
 */
import { RespError, kNullArray } from '../../reply';
import { parseMpop } from '../collection/args';
import { encodeBufferArray, nowArg } from '../exec';
import { popEvents } from '../events';
import { blockingCommand, served } from '../blocking/pop';
import { parseTimeout } from '../blocking/timeout';
import { side } from './lmove';
import { kListSql } from './sql';

export const blmpop = blockingCommand({
  name: 'blmpop', arity: -5, flags: ['write', 'blocking'], keys: { first: 0, last: 0, step: 0, numkeysAt: 2 },
  acl: ['write', 'list', 'slow'], group: 'list', since: '7.0.0',
  summary: 'Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if the last element was popped.',
  complexity: 'O(N+M) where N is the number of provided keys and M is the number of elements returned.',
  events: (emit, db, argv, reply) => {
    const p = parseMpop(argv, 2, side);
    if (!Array.isArray(reply) || p instanceof RespError) return;
    popEvents(emit, db, reply[0] as Buffer, p.where ? 'lpop' : 'rpop', p.count, reply[1]);
  },
}, (s, argv) => {
  // Redis's order: numkeys, direction, COUNT, then the timeout
  const p = parseMpop(argv, 2, side);
  if (p instanceof RespError) return p;
  const timeoutMs = parseTimeout(argv[1]);
  if (timeoutMs instanceof RespError) return timeoutMs;
  const encoded = encodeBufferArray(p.keys);
  return {
    timeoutMs,
    plan: {
      keys: p.keys, stmt: kListSql.bpop, timeoutReply: kNullArray,
      values: (seq, block) => [String(s.db), encoded, p.where ? 'true' : 'false', String(p.count), nowArg(), seq, block ? 'true' : 'false'],
      reply: (rows) => {
        const els = served(rows);
        return [els[0][1] as Buffer, els.map((r) => r[2] as Buffer)];
      },
    },
  };
});
