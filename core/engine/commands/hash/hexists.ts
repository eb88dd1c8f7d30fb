/**
 * HEXISTS key field — 1 when the hash has the field.
 * https://redis.io/commands/hexists/
 */
import { KeyType } from '../../key-store';
import { dbArg, exec, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

export const hexists = defineCommand({
  name: 'hexists', arity: 3, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'hash', 'fast'],
  group: 'hash', since: '2.0.0', summary: 'Determines whether a field exists in a hash.', complexity: 'O(1)',
  run: (s, argv) => exec(s, kHashSql.exists, [dbArg(s), argv[1], argv[2], nowArg()],
    typedRead(KeyType.Hash, 0, (rows) => (rows[0][1] ? 1 : 0))),
});
