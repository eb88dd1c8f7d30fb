/**
 * PERSIST key — removes the TTL: 1 when there was one, 0 when missing or without TTL.
 * https://redis.io/commands/persist/
 */
import { defineCommand } from '../define';
import { whenDone } from '../events';
import { kOneKey } from '../spec';
import { dbOf, nowMs } from './shared';

const kStmt = {
  name: 'pr_persist',
  text: `WITH u AS (UPDATE kv SET expires_at = NULL, version = txid_current()
           WHERE db = $1::int2 AND key = $2::bytea AND expires_at > $3::int8 RETURNING 1)
         SELECT count(*)::int4 FROM u`,
};

export const persist = defineCommand({
  name: 'persist', arity: 2, flags: ['write', 'fast'], keys: kOneKey, acl: ['keyspace', 'write', 'fast'],
  events: whenDone('persist'),
  group: 'generic', since: '2.2.0', summary: 'Removes the expiration time of a key.', complexity: 'O(1)',
  run: (s, argv) => s.server.store.exec(s, kStmt, [dbOf(s), argv[1], nowMs()], (rows) => rows[0][0] as number),
});
