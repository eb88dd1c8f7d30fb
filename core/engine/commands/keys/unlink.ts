/**
 * UNLINK key [key …] — DEL: Postgres frees the rows either way (a collection's rows through
 * trigger kv_deleted), so there is no slower synchronous variant to avoid.
 * https://redis.io/commands/unlink/
 */
import { defineCommand } from '../define';
import { delEvents } from './events';
import { kAllKeys } from '../spec';

export const unlink = defineCommand({
  name: 'unlink', arity: -2, flags: ['write', 'fast'], keys: kAllKeys, acl: ['keyspace', 'write', 'fast'],
  events: delEvents,
  tips: ['request_policy:multi_shard', 'response_policy:agg_sum'],
  group: 'generic', since: '4.0.0', complexity: 'O(1) for each key removed regardless of its size.',
  summary: 'Asynchronously deletes one or more keys.',
  run: (s, argv) => s.server.store.del(s, argv.slice(1)),
});
