/**
 * RANDOMKEY — a random live key of the selected database, nil when it is empty. Uniform enough,
 * not exactly uniform: a random row of a random heap block (random_key).
 * https://redis.io/commands/randomkey/
 */
import { defineCommand } from '../define';
import { dbArg, nowArg } from '../exec';
import { kKeySql } from './sql';


export const randomkey = defineCommand({
  name: 'randomkey', arity: 1, flags: ['readonly'], acl: ['keyspace', 'read', 'slow'], group: 'generic',
  tips: ['request_policy:all_shards', 'nondeterministic_output'],
  summary: 'Returns a random key name from the database.', complexity: 'O(1)',
  run: (s) => s.server.store.exec(s, kKeySql.randomKey, [dbArg(s), nowArg()], (rows) => (rows[0][0] as Buffer | null) ?? null),
});
