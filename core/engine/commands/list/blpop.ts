/**
 * BLPOP | BRPOP key [key …] timeout — [key, element] from the first non-empty list, blocking
 * up to timeout seconds (0 = forever) until a push fills one; a null array on timeout.
 * https://redis.io/commands/blpop/
 */
import { blockingCommand, keysThenTimeout, served, servedKeyEvents } from '../blocking/pop';
import type { CommandSpec } from '../spec';
import { kListSql } from './sql';

function bpop(name: string, left: boolean, summary: string): CommandSpec {
  return blockingCommand({
    name, arity: -3, flags: ['write', 'noscript', 'blocking'], keys: { first: 1, last: -2, step: 1 },
    acl: ['write', 'list', 'slow'], group: 'list', since: '2.0.0', summary,
    complexity: 'O(N) where N is the number of provided keys.', events: servedKeyEvents(left ? 'lpop' : 'rpop'),
  }, keysThenTimeout(kListSql.bpop, left, (rows) => {
    const r = served(rows)[0];
    return [r[1] as Buffer, r[2] as Buffer];
  }));
}

export const blpop = bpop('blpop', true, 'Removes and returns the first element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.');
export const brpop = bpop('brpop', false, 'Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.');
