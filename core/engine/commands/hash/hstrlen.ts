/**
 * HSTRLEN key field — the length of the field's value, 0 when missing.
 * https://redis.io/commands/hstrlen/
 */
import { KeyType } from '../../key-store';
import { dbArg, exec, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

export const hstrlen = defineCommand({
  name: 'hstrlen', arity: 3, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'hash', 'fast'],
  group: 'hash', since: '3.2.0', summary: 'Returns the length of the value of a field.', complexity: 'O(1)',
  run: (s, argv) => exec(s, kHashSql.strlen, [dbArg(s), argv[1], argv[2], nowArg()],
    typedRead(KeyType.Hash, 0, (rows) => (rows[0][1] as number | null) ?? 0)),
});
