/**
 * XLEN key — the number of entries (kv.card: O(1)).
 * https://redis.io/commands/xlen/
 */
import { KeyType } from '../../key-store';
import { dbArg, exec, int8Reply, nowArg, typedRead } from '../exec';
import { kCardSql } from '../collection/sql';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';

export const xlen = defineCommand({
  name: 'xlen', arity: 2, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'stream', 'fast'],
  group: 'stream', since: '5.0.0', summary: 'Return the number of messages in a stream.', complexity: 'O(1)',
  run: (s, argv) => exec(s, kCardSql, [dbArg(s), argv[1], nowArg()], typedRead(KeyType.Stream, 0, (rows) => int8Reply(rows[0][1]))),
});
