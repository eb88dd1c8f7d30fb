/**
 * SETRANGE key offset value — overwrites from offset (zero-padding past the end), answers the
 * new length. Redis's order: bad offset, WRONGTYPE, empty value (length, no write), size limit.
 * https://redis.io/commands/setrange/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { parseI64 } from '../args';
import { defineCommand } from '../define';
import { setrangeEvents } from './events';
import { kTooLong } from '../keys/shared';
import { dbArg, int8Reply, nowArg } from '../exec';
import { kOneKey } from '../spec';
import { kStringSql } from './sql';

const kOffset = new RespError('ERR offset is out of range');

export const setrange = defineCommand({
  name: 'setrange', arity: 4, flags: ['write', 'denyoom'], keys: kOneKey, acl: ['write', 'string', 'slow'],
  events: setrangeEvents,
  group: 'string', since: '2.2.0', complexity: 'O(1)',
  summary: 'Overwrites a part of a string value with another by an offset. Creates the key if it doesn\'t exist.',
  run(s, argv) {
    const offset = parseI64(argv[2]);
    if (offset === undefined) return Err.notInteger;
    if (offset < 0n) return kOffset;
    const max = String(s.server.config.int('proto-max-bulk-len'));
    return s.server.store.exec(s, kStringSql.setrange, [dbArg(s), argv[1], String(offset), argv[3], max, nowArg()], (rows) => {
      const status = rows[0][0] as number;
      if (status === 2) return Err.wrongType;
      return status === 5 ? kTooLong : int8Reply(rows[0][1]);
    });
  },
});
