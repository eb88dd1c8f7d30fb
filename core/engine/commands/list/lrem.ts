/**
 * LREM key count element — removes the first count matches (from the tail when negative, all
 * when 0); the number removed.
 * https://redis.io/commands/lrem/
 */
import { Err } from '../../resp-errors';
import { parseI64 } from '../args';
import { dbArg, exec, int8, nowArg, statusReply, countNoted } from '../exec';
import { defineCommand } from '../define';
import { whenRemoved } from '../events';
import { kOneKey } from '../spec';
import { kListSql } from './sql';

export const lrem = defineCommand({
  name: 'lrem', arity: 4, flags: ['write'], keys: kOneKey, acl: ['write', 'list', 'slow'],
  events: whenRemoved('lrem'),
  group: 'list', since: '1.0.0', summary: 'Removes elements from a list. Deletes the list if the last element was removed.',
  complexity: 'O(N+M) where N is the length of the list and M is the number of elements removed.',
  run(s, argv) {
    const count = parseI64(argv[2]);
    if (count === undefined) return Err.notInteger;
    return exec(s, kListSql.rem, [dbArg(s), argv[1], int8(count), argv[3], nowArg()], statusReply({}, countNoted));
  },
});
