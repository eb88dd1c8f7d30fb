/**
 * ZPOPMIN | ZPOPMAX key [count] — removes and returns the lowest / highest members with their
 * scores: flat [member, score] without count; with count, [member, score] pairs in RESP3.
 * https://redis.io/commands/zpopmin/
 */
import { BatchOp } from '../../ops';
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { positiveLong } from '../collection/args';
import { defineCommand } from '../define';
import { zpopEvents } from './events';
import { kOneKey, type CommandSpec } from '../spec';
import { kZpopBatch } from './zpop-batch';

function zpop(name: string, max: boolean, summary: string): CommandSpec {
  return defineCommand({
    name, arity: -2, flags: ['write', 'fast'], keys: kOneKey, acl: ['write', 'sortedset', 'fast'],
    events: zpopEvents(name),
    group: 'sorted-set', since: '5.0.0', summary,
    complexity: 'O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.',
    run(s, argv) {
      if (argv.length > 3) return Err.syntax;
      let count = 1n;
      const hasCount = argv.length === 3;
      if (hasCount) {
        const c = positiveLong(argv[2]);
        if (c instanceof RespError) return c;
        count = c;
      }
      // consecutive pops from one end of one key run as one call (./zpop-batch.ts)
      return s.server.store.submit(s, new BatchOp(kZpopBatch,
        { db: s.db, key: argv[1], count: hasCount ? count : null, max, nested: hasCount && s.proto === 3 }, null));
    },
  });
}

export const zpopmin = zpop('zpopmin', false, 'Returns the lowest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.');
export const zpopmax = zpop('zpopmax', true, 'Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.');
