/**
 * MGET key [key …] — values in order; nil for missing keys and for keys of other types.
 * https://redis.io/commands/mget/
 */
import { kAllKeys } from '../spec';
import { defineCommand } from '../define';

export const mget = defineCommand({
  name: 'mget', arity: -2, flags: ['readonly', 'fast'], keys: kAllKeys, acl: ['read', 'string', 'fast'],
  tips: ['request_policy:multi_shard'],
  group: 'string', summary: 'Atomically returns the string values of one or more keys.', complexity: 'O(N)',
  run: (s, argv) => s.server.store.mget(s, argv.slice(1)),
});
