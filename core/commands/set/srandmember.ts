/**
 * SRANDMEMBER key [count] — one random member (or nil), up to count distinct ones, or -count
 * picks with repetitions (collection/random.ts).
 * https://redis.io/commands/srandmember/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { KeyType } from '../../store';
import { dbArg, exec, nowArg, typedRead } from '../collection/exec';
import { parseRandCount, randomH, randomHs, shuffle } from '../collection/random';
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
    if (argv.length === 2) {
      return exec(s, kSetSql.rand1, [dbArg(s), argv[1], String(randomH()), nowArg()],
        typedRead(KeyType.Set, null, (rows) => rows[0][1] as Buffer));
    }
    const count = parseRandCount(argv[2], false, false);
    if (count instanceof RespError) return count;
    const members = (rows: unknown[][]) => rows.map((r) => r[1] as Buffer);
    if (count >= 0) {
      return exec(s, kSetSql.randDistinct, [dbArg(s), argv[1], String(randomH()), String(count), nowArg()],
        typedRead(KeyType.Set, [], (rows) => (count === 0 ? [] : members(shuffle(rows)))));
    }
    return exec(s, kSetSql.randRepeat, [dbArg(s), argv[1], `{${randomHs(-count).join(',')}}`, nowArg()],
      typedRead(KeyType.Set, [], members));
  },
});
