/**
 * GETDEL key — the value, and the key is deleted; nil when missing.
 * https://redis.io/commands/getdel/
 */
import { Err } from '../../resp-errors';
import { defineCommand } from '../define';
import { whenDone } from '../events';
import { dbArg, nowArg } from '../exec';
import { kOneKey } from '../spec';
import { kStringSql } from './sql';


export const getdel = defineCommand({
  name: 'getdel', arity: 2, flags: ['write', 'fast'], keys: kOneKey, acl: ['write', 'string', 'fast'],
  events: whenDone('del'),
  group: 'string', since: '6.2.0', summary: 'Returns the string value of a key after deleting the key.', complexity: 'O(1)',
  run: (s, argv) => s.server.store.exec(s, kStringSql.getdel, [dbArg(s), argv[1], nowArg()],
    (rows) => (rows[0][0] === 2 ? Err.wrongType : (rows[0][1] as Buffer | null))),
});
