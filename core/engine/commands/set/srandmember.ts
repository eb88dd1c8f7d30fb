/**
 * SRANDMEMBER key [count] — one random member (or nil), up to count distinct ones, or -count
 * picks with repetitions; every pick uniform (collection/random-sql.ts).
 * https://redis.io/commands/srandmember/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { KeyType } from '../../key-store';
import { dbArg, exec, nowArg, typedRead } from '../exec';
import { parseRandCount } from '../collection/random';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kSetSql } from './sql';

export const srandmember = defineCommand({
  name: 'srandmember', arity: -2, flags: ['readonly'], keys: kOneKey, acl: ['read', 'set', 'slow'],
  tips: ['nondeterministic_output'],
  group: 'set', since: '1.0.0', summary: 'Get one or multiple random members from a set',
  complexity: 'Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.',
  run(s, argv) {
    if (argv.length > 3) return Err.syntax;
    const single = argv.length === 2;
    const count = single ? -1 : parseRandCount(argv[2], false, false);
    if (count instanceof RespError) return count;
    return exec(s, kSetSql.rand, [dbArg(s), argv[1], String(count), nowArg()],
      typedRead(KeyType.Set, single ? null : [], (rows) => {
        const members = rows.filter((r) => r[1] !== null).map((r) => r[1] as Buffer);
        return single ? members[0] ?? null : members;
      }));
  },
});
