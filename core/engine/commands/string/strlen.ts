/**
 * STRLEN key — the length of the value, 0 when missing.
 * https://redis.io/commands/strlen/
 */
import { Err } from '../../resp-errors';
import { defineCommand } from '../define';
import { dbArg, nowArg } from '../exec';
import { kOneKey } from '../spec';
import { kStringSql } from './sql';


export const strlen = defineCommand({
  name: 'strlen', arity: 2, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'string', 'fast'],
  group: 'string', since: '2.2.0', summary: 'Returns the length of a string value.', complexity: 'O(1)',
  run: (s, argv) => s.server.store.exec(s, kStringSql.strlen, [dbArg(s), argv[1], nowArg()], (rows) => {
    if (rows.length === 0) return 0;
    return rows[0][0] === 0 ? Number(rows[0][1]) : Err.wrongType;
  }),
});
