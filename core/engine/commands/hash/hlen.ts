/**
 * HLEN key — the number of fields (kv.card: O(1)).
 * https://redis.io/commands/hlen/
 */
import { KeyType } from '../../key-store';
import { dbArg, exec, int8Reply, nowArg, typedRead } from '../exec';
import { kCardSql } from '../collection/sql';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';

export const hlen = defineCommand({
  name: 'hlen', arity: 2, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'hash', 'fast'],
  group: 'hash', since: '2.0.0', summary: 'Returns the number of fields in a hash.', complexity: 'O(1)',
  run: (s, argv) => exec(s, kCardSql, [dbArg(s), argv[1], nowArg()], typedRead(KeyType.Hash, 0, (rows) => int8Reply(rows[0][1]))),
});
