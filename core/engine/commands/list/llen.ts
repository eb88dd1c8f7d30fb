/**
 * LLEN key — the length (kv.card: O(1)).
 * https://redis.io/commands/llen/
 */
import { KeyType } from '../../key-store';
import { dbArg, exec, int8Reply, nowArg, typedRead } from '../exec';
import { kCardSql } from '../collection/sql';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';

export const llen = defineCommand({
  name: 'llen', arity: 2, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'list', 'fast'],
  group: 'list', since: '1.0.0', summary: 'Returns the length of a list.', complexity: 'O(1)',
  run: (s, argv) => exec(s, kCardSql, [dbArg(s), argv[1], nowArg()], typedRead(KeyType.List, 0, (rows) => int8Reply(rows[0][1]))),
});
