/**
 * ZREM key member [member …] — members removed; the key goes with its last member.
 * https://redis.io/commands/zrem/
 */
import { encodeBufferArray, dbArg, exec, nowArg, statusReply, countNoted } from '../exec';
import { distinct } from '../collection/args';
import { defineCommand } from '../define';
import { whenRemoved } from '../events';
import { kOneKey } from '../spec';
import { kZsetSql } from './sql';

export const zrem = defineCommand({
  name: 'zrem', arity: -3, flags: ['write', 'fast'], keys: kOneKey, acl: ['write', 'sortedset', 'fast'],
  events: whenRemoved('zrem'),
  group: 'sorted-set', since: '1.2.0', summary: 'Removes one or more members from a sorted set. Deletes the sorted set if all members were removed.',
  complexity: 'O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.',
  run: (s, argv) => exec(s, kZsetSql.rem, [dbArg(s), argv[1], encodeBufferArray(distinct(argv.slice(2))), nowArg()],
    statusReply({}, countNoted)),
});
