/**
 * SRANDMEMBER key [count] — one random member (or nil), up to count distinct ones, or -count
 * picks with repetitions; every pick uniform (collection/random-sql.ts).
 * https://redis.io/commands/srandmember/
 */
import { KeyType } from '../../key-store';
import { randomPick } from '../collection/random';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kSetSql } from './sql';

export const srandmember = defineCommand({
  name: 'srandmember', arity: -2, flags: ['readonly'], keys: kOneKey, acl: ['read', 'set', 'slow'],
  tips: ['nondeterministic_output'],
  group: 'set', since: '1.0.0', summary: 'Get one or multiple random members from a set',
  complexity: 'Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.',
  run: (s, argv) => randomPick(s, argv, kSetSql.rand, KeyType.Set, undefined, (picked) => picked.map((r) => r[1] as Buffer)),
});
