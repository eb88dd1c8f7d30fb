/**
 * HDEL key field [field …] — fields removed; the key goes with its last field.
 * https://redis.io/commands/hdel/
 */
import { encodeBufferArray, dbArg, exec, nowArg, statusReply, countNoted } from '../exec';
import { distinct } from '../collection/args';
import { defineCommand } from '../define';
import { whenRemoved } from '../events';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

export const hdel = defineCommand({
  name: 'hdel', arity: -3, flags: ['write', 'fast'], keys: kOneKey, acl: ['write', 'hash', 'fast'],
  events: whenRemoved('hdel'),
  group: 'hash', since: '2.0.0', summary: 'Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.',
  complexity: 'O(N) where N is the number of fields to be removed.',
  run: (s, argv) => exec(s, kHashSql.del, [dbArg(s), argv[1], encodeBufferArray(distinct(argv.slice(2))), nowArg()],
    statusReply({}, countNoted)),
});
