/**
 * HRANDFIELD key [count [WITHVALUES]] — random fields: one (or nil), up to count distinct ones,
 * or -count picks with repetitions. Picks probe the (key, h) index at a random h: O(log n)
 * each, fair up to the spacing of the h values (docs/collections.md).
 * https://redis.io/commands/hrandfield/
 */
import { RespError, type Reply } from '../../reply';

import { KeyType } from '../../store';
import { eqIgnoreCase } from '../args';
import { dbArg, exec, nowArg, typedRead } from '../collection/exec';
import { parseRandCount, randomH, randomHs, shuffle } from '../collection/random';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

export const hrandfield = defineCommand({
  name: 'hrandfield', arity: -2, flags: ['readonly'], keys: kOneKey, acl: ['read', 'hash', 'slow'],
  tips: ['nondeterministic_output'],
  group: 'hash', since: '6.2.0', summary: 'Returns one or more random fields from a hash.',
  complexity: 'O(N) where N is the number of fields returned',
  run(s, argv) {
    if (argv.length === 2) {
      return exec(s, kHashSql.rand1, [dbArg(s), argv[1], String(randomH()), nowArg()],
        typedRead(KeyType.Hash, null, (rows) => rows[0][1] as Buffer));
    }
    const withValues = argv.length === 4 && eqIgnoreCase(argv[3], 'withvalues');
    const count = parseRandCount(argv[2], argv.length > 4 || (argv.length === 4 && !withValues), withValues);
    if (count instanceof RespError) return count;
    const pairs = (rows: unknown[][]): Reply => {
      if (!withValues) return rows.map((r) => r[1] as Buffer);
      if (s.proto === 3) return rows.map((r) => [r[1] as Buffer, r[2] as Buffer]);
      return rows.flatMap((r) => [r[1] as Buffer, r[2] as Buffer]);
    };
    if (count >= 0) {
      return exec(s, kHashSql.randDistinct, [dbArg(s), argv[1], String(randomH()), String(count), nowArg()],
        typedRead(KeyType.Hash, [], (rows) => (count === 0 ? [] : pairs(shuffle(rows)))));
    }
    return exec(s, kHashSql.randRepeat, [dbArg(s), argv[1], `{${randomHs(-count).join(',')}}`, nowArg()],
      typedRead(KeyType.Hash, [], pairs));
  },
});

