/**
 * HGET key field — the field's value, nil when the field or the key is missing.
 * https://redis.io/commands/hget/
 */
import { KeyType } from '../../key-store';
import { dbArg, exec, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

export const hget = defineCommand({
  name: 'hget', arity: 3, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'hash', 'fast'],
  group: 'hash', since: '2.0.0', summary: 'Returns the value of a field in a hash.', complexity: 'O(1)',
  run: (s, argv) => exec(s, kHashSql.get, [dbArg(s), argv[1], argv[2], nowArg()],
    typedRead(KeyType.Hash, null, (rows) => rows[0][1] as Buffer | null)),
});
