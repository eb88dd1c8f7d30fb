/**
 * BZPOPMIN | BZPOPMAX key [key …] timeout — [key, member, score] of the lowest / highest member
 * of the first non-empty sorted set, blocking up to timeout seconds (0 = forever); a null array
 * on timeout.
 * https://redis.io/commands/bzpopmin/
 */
import { RespDouble } from '../../reply';
import { blockingCommand, keysThenTimeout, served, servedKeyEvents } from '../blocking/pop';
import type { CommandSpec } from '../spec';
import { kZsetSql } from './sql';

function bzpop(name: string, max: boolean, summary: string): CommandSpec {
  return blockingCommand({
    name, arity: -3, flags: ['write', 'noscript', 'blocking', 'fast'], keys: { first: 1, last: -2, step: 1 },
    acl: ['write', 'sortedset', 'fast'], group: 'sorted-set', since: '5.0.0', summary,
    complexity: 'O(log(N)) with N being the number of elements in the sorted set.', events: servedKeyEvents(name.slice(1)),
  }, keysThenTimeout(kZsetSql.bpop, max, (rows) => {
    const r = served(rows)[0];
    return [r[1] as Buffer, r[2] as Buffer, new RespDouble(r[3] as number)];
  }));
}

export const bzpopmin = bzpop('bzpopmin', false, 'Removes and returns the member with the lowest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.');
export const bzpopmax = bzpop('bzpopmax', true, 'Removes and returns the member with the highest score from one or more sorted sets. Blocks until a member available otherwise.  Deletes the sorted set if the last element was popped.');
