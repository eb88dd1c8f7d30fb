/**
 * EXISTS key [key …] — how many of the named keys exist; a key named twice counts twice.
 * https://redis.io/commands/exists/
 */
import { kAllKeys } from '../spec';
import { defineCommand } from '../define';

export const exists = defineCommand({
  name: 'exists', arity: -2, flags: ['readonly', 'fast'], keys: kAllKeys, acl: ['keyspace', 'read', 'fast'],
  tips: ['request_policy:multi_shard', 'response_policy:agg_sum'],
  group: 'generic', since: '1.0.0', summary: 'Determines whether one or more keys exist.', complexity: 'O(N)',
  run: (s, argv) => s.server.store.exists(s, argv.slice(1)),
});
