/**
 * ZRANDMEMBER key [count [WITHSCORES]] — random members: one (or nil), up to count distinct
 * ones, or -count picks with repetitions (collection/random.ts).
 * https://redis.io/commands/zrandmember/
 */
import { RespError } from '../../reply';
import { KeyType } from '../../store';
import { eqIgnoreCase } from '../args';
import { dbArg, exec, nowArg, typedRead } from '../collection/exec';
import { parseRandCount, randomH, randomHs, shuffle } from '../collection/random';
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
    if (argv.length === 2) {
      return exec(s, kZsetSql.rand1, [dbArg(s), argv[1], String(randomH()), nowArg()],
        typedRead(KeyType.Zset, null, (rows) => rows[0][1] as Buffer));
    }
    const withScores = argv.length === 4 && eqIgnoreCase(argv[3], 'withscores');
    const count = parseRandCount(argv[2], argv.length > 4 || (argv.length === 4 && !withScores), withScores);
    if (count instanceof RespError) return count;
    const reply = (rows: unknown[][]) => elements(rows, 1, withScores, s.proto === 3);
    if (count >= 0) {
      return exec(s, kZsetSql.randDistinct, [dbArg(s), argv[1], String(randomH()), String(count), nowArg()],
        typedRead(KeyType.Zset, [], (rows) => (count === 0 ? [] : reply(shuffle(rows)))));
    }
    return exec(s, kZsetSql.randRepeat, [dbArg(s), argv[1], `{${randomHs(-count).join(',')}}`, nowArg()],
      typedRead(KeyType.Zset, [], reply));
  },
});
