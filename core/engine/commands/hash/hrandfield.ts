/**
 * HRANDFIELD key [count [WITHVALUES]] — random fields: one (or nil), up to count distinct ones,
 * or -count picks with repetitions; every pick uniform (collection/random-sql.ts: the costs).
 * https://redis.io/commands/hrandfield/
 */
import { KeyType } from '../../key-store';
import { randomPick } from '../collection/random';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

export const hrandfield = defineCommand({
  name: 'hrandfield', arity: -2, flags: ['readonly'], keys: kOneKey, acl: ['read', 'hash', 'slow'],
  tips: ['nondeterministic_output'],
  group: 'hash', since: '6.2.0', summary: 'Returns one or more random fields from a hash.',
  complexity: 'O(N) where N is the number of fields returned',
  run: (s, argv) => randomPick(s, argv, kHashSql.rand, KeyType.Hash, 'withvalues', (picked, withValues) => {
    if (!withValues) return picked.map((r) => r[1] as Buffer);
    if (s.proto === 3) return picked.map((r) => [r[1] as Buffer, r[2] as Buffer]);
    return picked.flatMap((r) => [r[1] as Buffer, r[2] as Buffer]);
  }),
});
