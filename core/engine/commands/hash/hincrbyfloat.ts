/**
 * HINCRBYFLOAT key field increment — the new value as text. Redis adds long doubles and prints
 * "%.17Lf" without trailing zeros; Postgres does the same in exact numerics (ld_add), so
 * 0.1 + 0.2 is "0.3" here too.
 * https://redis.io/commands/hincrbyfloat/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { dbArg, exec, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

const kErrors = {
  3: new RespError('ERR hash value is not a float'),
  4: new RespError('ERR increment would produce NaN or Infinity'),
  5: Err.notFloat,
  6: new RespError('ERR value is NaN or Infinity'),
};

export const hincrbyfloat = defineCommand({
  name: 'hincrbyfloat', arity: 4, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'hash', 'fast'],
  events: 'hincrbyfloat',
  group: 'hash', since: '2.6.0', summary: 'Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn\'t exist.',
  complexity: 'O(1)',
  run: (s, argv) => exec(s, kHashSql.incrByFloat, [dbArg(s), argv[1], argv[2], argv[3], nowArg()],
    statusReply(kErrors, (rows) => Buffer.from(rows[0][1] as string, 'latin1'))),
});
