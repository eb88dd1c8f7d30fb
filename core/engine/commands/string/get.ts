/**
 * GET key — the value, nil when missing or expired, WRONGTYPE for other types.
 * https://redis.io/commands/get/
 */
import { kOneKey } from '../spec';
import { defineCommand } from '../define';

export const get = defineCommand({
  name: 'get', arity: 2, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'string', 'fast'],
  group: 'string', summary: 'Returns the string value of a key.', complexity: 'O(1)',
  run: (s, argv) => s.server.store.get(s, argv[1]),
});
