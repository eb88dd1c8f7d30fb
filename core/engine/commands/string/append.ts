/**
 * APPEND key value — appends (creating the key if missing), answers the new length.
 * https://redis.io/commands/append/
 */
import { Err } from '../../resp-errors';
import { defineCommand } from '../define';
import { kTooLong } from '../keys/shared';
import { dbArg, int8Reply, nowArg } from '../exec';
import { kOneKey } from '../spec';
import { kStringSql } from './sql';


export const append = defineCommand({
  name: 'append', arity: 3, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'string', 'fast'],
  events: 'append',
  group: 'string', since: '2.0.0', summary: 'Appends a string to the value of a key. Creates the key if it doesn\'t exist.',
  complexity: 'O(1)',
  run(s, argv) {
    const max = String(s.server.config.int('proto-max-bulk-len'));
    return s.server.store.exec(s, kStringSql.append, [dbArg(s), argv[1], argv[2], max, nowArg()], (rows) => {
      const status = rows[0][0] as number;
      if (status === 2) return Err.wrongType;
      return status === 5 ? kTooLong : int8Reply(rows[0][1]);
    });
  },
});
