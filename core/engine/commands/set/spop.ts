/**
 * SPOP key [count] — removes and returns one random member (or nil), or up to count of them (a
 * set in RESP3). Picks as in collection/random.ts; count ≥ size takes the whole set.
 * https://redis.io/commands/spop/
 */
import { RespError, RespSet } from '../../reply';
import { Err } from '../../resp-errors';
import { dbArg, exec, goneNoted, nowArg, statusReply } from '../exec';
import { positiveLong } from '../collection/args';
import { randomH } from '../collection/random';
import { defineCommand } from '../define';
import { spopEvents } from './events';
import { kOneKey } from '../spec';
import { kSetSql } from './sql';

export const spop = defineCommand({
  name: 'spop', arity: -2, flags: ['write', 'fast'], keys: kOneKey, acl: ['write', 'set', 'fast'],
  events: spopEvents,
  tips: ['nondeterministic_output'],
  group: 'set', since: '1.0.0', summary: 'Returns one or more random members from a set after removing them. Deletes the set if the last member was popped.',
  complexity: 'Without the count argument O(1), otherwise O(N) where N is the value of the passed count.',
  run(s, argv) {
    if (argv.length > 3) return Err.syntax;
    const single = argv.length === 2;
    let count = 1n;
    if (!single) {
      const c = positiveLong(argv[2]);
      if (c instanceof RespError) return c;
      count = c;
    }
    const values = [dbArg(s), argv[1], String(count), String(randomH()), nowArg()];
    return exec(s, kSetSql.pop, values, (rows) => {
      if (rows.length === 0) return single ? null : new RespSet([]);
      return statusReply({}, () => goneNoted(rows, 2, single ? rows[0][1] as Buffer : new RespSet(rows.map((r) => r[1] as Buffer))))(rows);
    });
  },
});
