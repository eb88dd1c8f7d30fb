/**
 * PERSIST key — removes the TTL: 1 when there was one, 0 when missing or without TTL.
 * https://redis.io/commands/persist/
 */
import { defineCommand } from '../define';
import { whenDone } from '../events';
import { kOneKey } from '../spec';
import { dbArg, nowArg } from '../exec';
import { kKeySql } from './sql';


export const persist = defineCommand({
  name: 'persist', arity: 2, flags: ['write', 'fast'], keys: kOneKey, acl: ['keyspace', 'write', 'fast'],
  events: whenDone('persist'),
  group: 'generic', since: '2.2.0', summary: 'Removes the expiration time of a key.', complexity: 'O(1)',
  run: (s, argv) => s.server.store.exec(s, kKeySql.persist, [dbArg(s), argv[1], nowArg()], (rows) => rows[0][0] as number),
});
