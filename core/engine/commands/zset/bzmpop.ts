/**
 * BZMPOP timeout numkeys key [key …] MIN|MAX [COUNT count] — ZMPOP that blocks up to timeout
 * seconds (0 = forever) while every sorted set is empty; a null array on timeout.
 * https://redis.io/commands/bzmpop/
 */
import { blockingMpop, served } from '../blocking/pop';
import { minMax } from './zmpop';
import { elements } from './reply';
import { kZsetSql } from './sql';

export const bzmpop = blockingMpop({
  name: 'bzmpop', acl: ['write', 'sortedset', 'slow'], group: 'sorted-set',
  summary: 'Removes and returns a member by score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.',
  complexity: 'O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.',
}, kZsetSql.bpop, minMax, ['zpopmax', 'zpopmin'], true, (rows) => {
  const els = served(rows);
  return [els[0][1] as Buffer, elements(els, 2, true, true)];
});
