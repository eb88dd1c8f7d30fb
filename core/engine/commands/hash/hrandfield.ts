/**
 * HRANDFIELD key [count [WITHVALUES]] — random fields: one (or nil), up to count distinct ones,
 * or -count picks with repetitions; every pick uniform (collection/random-sql.ts: the costs).
 * https://redis.io/commands/hrandfield/
 */
import { RespError, type Reply } from '../../reply';
import { KeyType } from '../../key-store';
import { eqIgnoreCase } from '../args';
import { dbArg, exec, nowArg, typedRead } from '../exec';
import { parseRandCount } from '../collection/random';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

export const hrandfield = defineCommand({
  name: 'hrandfield', arity: -2, flags: ['readonly'], keys: kOneKey, acl: ['read', 'hash', 'slow'],
  tips: ['nondeterministic_output'],
  group: 'hash', since: '6.2.0', summary: 'Returns one or more random fields from a hash.',
  complexity: 'O(N) where N is the number of fields returned',
  run(s, argv) {
    const single = argv.length === 2;
    const withValues = argv.length === 4 && eqIgnoreCase(argv[3], 'withvalues');
    const count = single ? -1 : parseRandCount(argv[2], argv.length > 4 || (argv.length === 4 && !withValues), withValues);
    if (count instanceof RespError) return count;
    return exec(s, kHashSql.rand, [dbArg(s), argv[1], String(count), nowArg()],
      typedRead(KeyType.Hash, single ? null : [], (rows): Reply => {
        const picked = rows.filter((r) => r[1] !== null);
        if (single) return (picked[0]?.[1] as Buffer | undefined) ?? null;
        if (!withValues) return picked.map((r) => r[1] as Buffer);
        if (s.proto === 3) return picked.map((r) => [r[1] as Buffer, r[2] as Buffer]);
        return picked.flatMap((r) => [r[1] as Buffer, r[2] as Buffer]);
      }));
  },
});

