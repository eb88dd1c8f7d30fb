/**
 * HSETNX key field value — 1 when the field was set, 0 when it already existed.
 * https://redis.io/commands/hsetnx/
 */
import { encodeBufferArray, dbArg, exec, int8Reply, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { whenDone } from '../events';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

export const hsetnx = defineCommand({
  name: 'hsetnx', arity: 4, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'hash', 'fast'],
  events: whenDone('hset'),
  group: 'hash', since: '2.0.0', summary: 'Sets the value of a field in a hash only when the field doesn\'t exist.',
  complexity: 'O(1)',
  run(s, argv) {
    const values = [dbArg(s), argv[1], encodeBufferArray([argv[2]]), encodeBufferArray([argv[3]]), 'true', nowArg()];
    return exec(s, kHashSql.set, values, statusReply({}, (rows) => int8Reply(rows[0][1])));
  },
});
