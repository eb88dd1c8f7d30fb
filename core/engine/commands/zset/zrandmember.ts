/**
 * ZRANDMEMBER key [count [WITHSCORES]] — random members: one (or nil), up to count distinct
 * ones, or -count picks with repetitions; every pick uniform (collection/random-sql.ts).
 * https://redis.io/commands/zrandmember/
 */
import { RespError } from '../../reply';
import { KeyType } from '../../key-store';
import { eqIgnoreCase } from '../args';
import { dbArg, exec, nowArg, typedRead } from '../exec';
import { parseRandCount } from '../collection/random';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { elements } from './reply';
import { kZsetSql } from './sql';

export const zrandmember = defineCommand({
  name: 'zrandmember', arity: -2, flags: ['readonly'], keys: kOneKey, acl: ['read', 'sortedset', 'slow'],
  tips: ['nondeterministic_output'],
  group: 'sorted-set', since: '6.2.0', summary: 'Returns one or more random members from a sorted set.',
  complexity: 'O(N) where N is the number of members returned',
  run(s, argv) {
    const single = argv.length === 2;
    const withScores = argv.length === 4 && eqIgnoreCase(argv[3], 'withscores');
    const count = single ? -1 : parseRandCount(argv[2], argv.length > 4 || (argv.length === 4 && !withScores), withScores);
    if (count instanceof RespError) return count;
    return exec(s, kZsetSql.rand, [dbArg(s), argv[1], String(count), nowArg()],
      typedRead(KeyType.Zset, single ? null : [], (rows) => {
        if (single) return (rows.find((r) => r[1] !== null)?.[1] as Buffer | undefined) ?? null;
        return elements(rows, 1, withScores, s.proto === 3);
      }));
  },
});
