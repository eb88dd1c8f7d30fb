/**
 * GETDEL key — the value, and the key is deleted; nil when missing.
 * https://redis.io/commands/getdel/
 */
import { Err } from '../../resp-errors';
import { defineCommand } from '../define';
import { whenDone } from '../events';
import { dbOf, nowMs } from '../keys/shared';
import { kOneKey } from '../spec';

const kStmt = { name: 'pr_getdel', text: 'SELECT status, val FROM getdel($1::int2, $2::bytea, $3::int8)' };

export const getdel = defineCommand({
  name: 'getdel', arity: 2, flags: ['write', 'fast'], keys: kOneKey, acl: ['write', 'string', 'fast'],
  events: whenDone('del'),
  group: 'string', since: '6.2.0', summary: 'Returns the string value of a key after deleting the key.', complexity: 'O(1)',
  run: (s, argv) => s.server.store.exec(s, kStmt, [dbOf(s), argv[1], nowMs()],
    (rows) => (rows[0][0] === 2 ? Err.wrongType : (rows[0][1] as Buffer | null))),
});
