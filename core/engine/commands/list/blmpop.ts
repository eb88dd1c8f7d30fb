/**
 * BLMPOP timeout numkeys key [key …] LEFT|RIGHT [COUNT count] — LMPOP that blocks up to timeout
 * seconds (0 = forever) while every list is empty; a null array on timeout.
 * https://redis.io/commands/blmpop/
 */
import { blockingCommand, countedKeys, countedPopEvents, served } from '../blocking/pop';
import { side } from './lmove';
import { kListSql } from './sql';

export const blmpop = blockingCommand({
  name: 'blmpop', arity: -5, flags: ['write', 'blocking'], keys: { first: 0, last: 0, step: 0, numkeysAt: 2 },
  acl: ['write', 'list', 'slow'], group: 'list', since: '7.0.0',
  summary: 'Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if the last element was popped.',
  complexity: 'O(N+M) where N is the number of provided keys and M is the number of elements returned.',
  events: countedPopEvents(side, ['lpop', 'rpop'], false),
}, countedKeys(kListSql.bpop, side, (rows) => {
  const els = served(rows);
  return [els[0][1] as Buffer, els.map((r) => r[2] as Buffer)];
}));
