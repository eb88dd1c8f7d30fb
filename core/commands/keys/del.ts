/**
 * DEL key [key …] — the number of keys removed (expired keys do not count).
 * https://redis.io/commands/del/
 */
import { kAllKeys } from '../spec';
import { defineCommand } from '../define';

export const del = defineCommand({
  name: 'del', arity: -2, flags: ['write'], keys: kAllKeys, acl: ['keyspace', 'write', 'slow'],
  group: 'generic', summary: 'Deletes one or more keys.', complexity: 'O(N)',
  run: (s, argv) => s.server.store.del(s, argv.slice(1)),
});
