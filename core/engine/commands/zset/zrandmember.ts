/**
 * ZRANDMEMBER key [count [WITHSCORES]] — random members: one (or nil), up to count distinct
 * ones, or -count picks with repetitions; every pick uniform (collection/random-sql.ts).
 * https://redis.io/commands/zrandmember/
 */
import { KeyType } from '../../key-store';
import { randomPick } from '../collection/random';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { elements } from './reply';
import { kZsetSql } from './sql';

export const zrandmember = defineCommand({
  name: 'zrandmember', arity: -2, flags: ['readonly'], keys: kOneKey, acl: ['read', 'sortedset', 'slow'],
  tips: ['nondeterministic_output'],
  group: 'sorted-set', since: '6.2.0', summary: 'Returns one or more random members from a sorted set.',
  complexity: 'O(N) where N is the number of members returned',
  run: (s, argv) => randomPick(s, argv, kZsetSql.rand, KeyType.Zset, 'withscores',
    (picked, withScores) => elements(picked, 1, withScores, s.proto === 3)),
});
