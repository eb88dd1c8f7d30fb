/**
 * SISMEMBER key member — 1 when member is in the set; SMISMEMBER key member [member …] — one
 * 0/1 per member, in order.
 * https://redis.io/commands/smismember/
 */
import type { Reply } from '../../reply';
import { KeyType } from '../../key-store';
import { encodeBufferArray, dbArg, exec, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kSetSql } from './sql';

export const sismember = defineCommand({
  name: 'sismember', arity: 3, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'set', 'fast'],
  group: 'set', since: '1.0.0', summary: 'Determines whether a member belongs to a set.', complexity: 'O(1)',
  run: (s, argv) => exec(s, kSetSql.isMember, [dbArg(s), argv[1], argv[2], nowArg()],
    typedRead(KeyType.Set, 0, (rows) => (rows[0][1] ? 1 : 0))),
});

export const smismember = defineCommand({
  name: 'smismember', arity: -3, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'set', 'fast'],
  group: 'set', since: '6.2.0', summary: 'Determines whether multiple members belong to a set.',
  complexity: 'O(N) where N is the number of elements being checked for membership',
  run(s, argv) {
    const n = argv.length - 2;
    const zeros = (): Reply[] => new Array(n).fill(0);
    return exec(s, kSetSql.misMember, [dbArg(s), argv[1], encodeBufferArray(argv.slice(2)), nowArg()], typedRead(KeyType.Set, zeros(), (rows) => {
      const out = zeros();
      for (const r of rows) out[(r[1] as number) - 1] = r[2] ? 1 : 0;
      return out;
    }));
  },
});
