/**
 * LMPOP numkeys key [key …] LEFT|RIGHT [COUNT count] — [key, [elements]] from the first
 * non-empty list, or a null array.
 * https://redis.io/commands/lmpop/
 */
import { RespError, kNullArray } from '../../reply';
import { parseMpop } from '../collection/args';
import { dbArg, encodeBufferArray, exec, goneNoted, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { lmpopEvents } from './events';
import { kCountedKeys } from '../spec';
import { side } from './lmove';
import { kListSql } from './sql';

export const lmpop = defineCommand({
  name: 'lmpop', arity: -4, flags: ['write'], keys: kCountedKeys, acl: ['write', 'list', 'slow'],
  events: lmpopEvents,
  group: 'list', since: '7.0.0', summary: 'Returns multiple elements from a list after removing them. Deletes the list if the last element was popped.',
  complexity: 'O(N+M) where N is the number of provided keys and M is the number of elements returned.',
  run(s, argv) {
    const p = parseMpop(argv, 1, side);
    if (p instanceof RespError) return p;
    return exec(s, kListSql.mpop, [dbArg(s), encodeBufferArray(p.keys), p.where ? 'true' : 'false', String(p.count), nowArg()],
      (rows) => (rows.length === 0 ? kNullArray
        : statusReply({}, () => goneNoted(rows, 3, [rows[0][1] as Buffer, rows.map((r) => r[2] as Buffer)]))(rows)));
  },
});
