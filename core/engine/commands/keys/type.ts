/**
 * TYPE key — string, hash, list, set, zset, or none.
 * https://redis.io/commands/type/
 */
import { Simple } from '../../reply';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kTypeNames } from './shared';
import { dbArg, nowArg } from '../exec';
import { kKeySql } from './sql';

const kReplies = kTypeNames.map((n) => new Simple(n));
const kNone = new Simple('none');

export const type = defineCommand({
  name: 'type', arity: 2, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['keyspace', 'read', 'fast'],
  group: 'generic', summary: 'Determines the type of value stored at a key.', complexity: 'O(1)',
  run: (s, argv) => s.server.store.exec(s, kKeySql.type, [dbArg(s), argv[1], nowArg()],
    (rows) => (rows.length === 0 ? kNone : kReplies[rows[0][0] as number] ?? kNone)),
});
