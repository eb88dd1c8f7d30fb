/**
 * HINCRBY key field increment — the new value; a missing field starts at 0. The increment is
 * checked before the key, as in Redis.
 * https://redis.io/commands/hincrby/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { parseI64 } from '../args';
import { dbArg, exec, int8Reply, int8, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

const kNotInteger = new RespError('ERR hash value is not an integer');

export const hincrby = defineCommand({
  name: 'hincrby', arity: 4, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'hash', 'fast'],
  events: 'hincrby',
  group: 'hash', since: '2.0.0', summary: 'Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn\'t exist.',
  complexity: 'O(1)',
  run(s, argv) {
    const delta = parseI64(argv[3]);
    if (delta === undefined) return Err.notInteger;
    return exec(s, kHashSql.incrBy, [dbArg(s), argv[1], argv[2], int8(delta), nowArg()],
      statusReply({ 3: kNotInteger, 4: Err.overflow }, (rows) => int8Reply(rows[0][1])));
  },
});
