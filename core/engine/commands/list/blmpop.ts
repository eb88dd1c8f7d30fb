/**
 * BLMPOP timeout numkeys key [key …] LEFT|RIGHT [COUNT count] — LMPOP that blocks up to timeout
 * seconds (0 = forever) while every list is empty; a null array on timeout.
 * https://redis.io/commands/blmpop/
 */
import { blockingMpop, served } from '../blocking/pop';
import { side } from './lmove';
import { kListSql } from './sql';

export const blmpop = blockingMpop({
  name: 'blmpop', acl: ['write', 'list', 'slow'], group: 'list',
  summary: 'Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if the last element was popped.',
  complexity: 'O(N+M) where N is the number of provided keys and M is the number of elements returned.',
}, kListSql.bpop, side, ['lpop', 'rpop'], false, (rows) => {
  const els = served(rows);
  return [els[0][1] as Buffer, els.map((r) => r[2] as Buffer)];
});
