/**
 * TOUCH key [key …] — how many of the keys exist (a key named twice counts twice). No access
 * time is kept (OBJECT IDLETIME answers 0), so this is EXISTS.
 * https://redis.io/commands/touch/
 */
import { defineCommand } from '../define';
import { kAllKeys } from '../spec';

export const touch = defineCommand({
  name: 'touch', arity: -2, flags: ['readonly', 'fast'], keys: kAllKeys, acl: ['keyspace', 'read', 'fast'],
  tips: ['request_policy:multi_shard', 'response_policy:agg_sum'],
  group: 'generic', since: '3.2.1', complexity: 'O(N)',
  summary: 'Returns the number of existing keys out of those specified after updating the time they were last accessed.',
  run: (s, argv) => s.server.store.exists(s, argv.slice(1)),
});
