/**
 * DEL key [key …] — the number of keys removed (expired keys do not count).
 * https://redis.io/commands/del/
 */
import { kAllKeys } from '../spec';
import { defineCommand } from '../define';
import { delEvents } from './events';

export const del = defineCommand({
  name: 'del', arity: -2, flags: ['write'], keys: kAllKeys, acl: ['keyspace', 'write', 'slow'],
  events: delEvents,
  tips: ['request_policy:multi_shard', 'response_policy:agg_sum'],
  group: 'generic', summary: 'Deletes one or more keys.', complexity: 'O(N)',
  run: (s, argv) => s.server.store.del(s, argv.slice(1)),
});
