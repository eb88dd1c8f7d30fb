/**
 * INCRBYFLOAT key increment — adds a float, answers the new value as Redis prints it. The
 * arithmetic runs in Postgres with x87 long double semantics, bit-exact with Redis (see
 * ./functions-float.ts); the TTL is kept.
 * https://redis.io/commands/incrbyfloat/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { defineCommand } from '../define';
import { dbArg, nowArg } from '../exec';
import { kOneKey } from '../spec';
import { kStringSql } from './sql';

const kNanOrInf = new RespError('ERR increment would produce NaN or Infinity');

export const incrbyfloat = defineCommand({
  name: 'incrbyfloat', arity: 3, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'string', 'fast'],
  events: 'incrbyfloat',
  group: 'string', since: '2.6.0', complexity: 'O(1)',
  summary: 'Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn\'t exist.',
  run: (s, argv) => s.server.store.exec(s, kStringSql.incrByFloat, [dbArg(s), argv[1], argv[2], nowArg()], (rows) => {
    switch (rows[0][0] as number) {
      case 1: return rows[0][1] as Buffer;
      case 2: return Err.wrongType;
      case 3: return Err.notFloat;
      default: return kNanOrInf;
    }
  }),
});
