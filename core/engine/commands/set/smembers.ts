/**
 * SMEMBERS key — every member, a set in RESP3; order unspecified (as in Redis).
 * https://redis.io/commands/smembers/
 */
import { RespSet } from '../../reply';
import { KeyType } from '../../key-store';
import { dbArg, exec, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kSetSql } from './sql';

export const smembers = defineCommand({
  name: 'smembers', arity: 2, flags: ['readonly'], keys: kOneKey, acl: ['read', 'set', 'slow'],
  tips: ['nondeterministic_output_order'],
  group: 'set', since: '1.0.0', summary: 'Returns all members of a set.', complexity: 'O(N) where N is the set cardinality.',
  run: (s, argv) => exec(s, kSetSql.members, [dbArg(s), argv[1], nowArg()],
    typedRead(KeyType.Set, new RespSet([]), (rows) => new RespSet(rows.map((r) => r[1] as Buffer)))),
});
