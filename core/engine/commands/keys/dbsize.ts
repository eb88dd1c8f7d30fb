/**
 * DBSIZE — keys in the selected database (expired keys excluded).
 * https://redis.io/commands/dbsize/
 */
import { defineCommand } from '../define';

export const dbsize = defineCommand({
  name: 'dbsize', arity: 1, flags: ['readonly', 'fast'], acl: ['keyspace', 'read', 'fast'],
  tips: ['request_policy:all_shards', 'response_policy:agg_sum'],
  group: 'server', summary: 'Returns the number of keys in the database.',
  run: (s) => s.server.store.dbsize(s),
});
