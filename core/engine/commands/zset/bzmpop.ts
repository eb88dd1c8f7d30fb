/**
 * BZMPOP timeout numkeys key [key …] MIN|MAX [COUNT count] — ZMPOP that blocks up to timeout
 * seconds (0 = forever) while every sorted set is empty; a null array on timeout.
 * https://redis.io/commands/bzmpop/
 */
import { RespError, kNullArray } from '../../reply';
import { parseMpop } from '../collection/args';
import { encodeBufferArray, nowArg } from '../exec';
import { popEvents } from '../events';
import { blockingCommand, served } from '../blocking/pop';
import { parseTimeout } from '../blocking/timeout';
import { minMax } from './zmpop';
import { elements } from './reply';
import { kZsetSql } from './sql';

export const bzmpop = blockingCommand({
  name: 'bzmpop', arity: -5, flags: ['write', 'blocking'], keys: { first: 0, last: 0, step: 0, numkeysAt: 2 },
  acl: ['write', 'sortedset', 'slow'], group: 'sorted-set', since: '7.0.0',
  summary: 'Removes and returns a member by score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.',
  complexity: 'O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.',
  events: (emit, db, argv, reply) => {
    const p = parseMpop(argv, 2, minMax);
    if (!Array.isArray(reply) || p instanceof RespError) return;
    popEvents(emit, db, reply[0] as Buffer, p.where ? 'zpopmax' : 'zpopmin', p.count, reply[1], true);
  },
}, (s, argv) => {
  // Redis's order: numkeys, MIN|MAX, COUNT, then the timeout
  const p = parseMpop(argv, 2, minMax);
  if (p instanceof RespError) return p;
  const timeoutMs = parseTimeout(argv[1]);
  if (timeoutMs instanceof RespError) return timeoutMs;
  const encoded = encodeBufferArray(p.keys);
  return {
    timeoutMs,
    plan: {
      keys: p.keys, stmt: kZsetSql.bpop, timeoutReply: kNullArray,
      values: (seq, block) => [String(s.db), encoded, p.where ? 'true' : 'false', String(p.count), nowArg(), seq, block ? 'true' : 'false'],
      reply: (rows) => {
        const els = served(rows);
        return [els[0][1] as Buffer, elements(els, 2, true, true)];
      },
    },
  };
});
