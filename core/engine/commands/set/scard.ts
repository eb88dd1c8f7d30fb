/**
 * SCARD key — the number of members (kv.card: O(1)).
 * https://redis.io/commands/scard/
 */
import { KeyType } from '../../key-store';
import { dbArg, exec, int8Reply, nowArg, typedRead } from '../exec';
import { kCardSql } from '../collection/sql';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';

export const scard = defineCommand({
  name: 'scard', arity: 2, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'set', 'fast'],
  group: 'set', since: '1.0.0', summary: 'Returns the number of members in a set.', complexity: 'O(1)',
  run: (s, argv) => exec(s, kCardSql, [dbArg(s), argv[1], nowArg()], typedRead(KeyType.Set, 0, (rows) => int8Reply(rows[0][1]))),
});
