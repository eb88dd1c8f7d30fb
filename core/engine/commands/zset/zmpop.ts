/**
 * ZMPOP numkeys key [key …] MIN|MAX [COUNT count] — [key, [[member, score], …]] from the first
 * non-empty sorted set, or a null array.
 * https://redis.io/commands/zmpop/
 */
import { RespError, kNullArray } from '../../reply';
import { eqIgnoreCase } from '../args';
import { parseMpop } from '../collection/args';
import { dbArg, encodeBufferArray, exec, goneNoted, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { zmpopEvents } from './events';
import { kCountedKeys } from '../spec';
import { elements } from './reply';
import { kZsetSql } from './sql';

/** MAX → true, MIN → false */
export const minMax = (a: Buffer): boolean | undefined => (eqIgnoreCase(a, 'max') ? true : eqIgnoreCase(a, 'min') ? false : undefined);

export const zmpop = defineCommand({
  name: 'zmpop', arity: -4, flags: ['write'], keys: kCountedKeys, acl: ['write', 'sortedset', 'slow'],
  events: zmpopEvents,
  group: 'sorted-set', since: '7.0.0', summary: 'Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. Deletes the sorted set if the last member was popped.',
  complexity: 'O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.',
  run(s, argv) {
    const p = parseMpop(argv, 1, minMax);
    if (p instanceof RespError) return p;
    return exec(s, kZsetSql.mpop, [dbArg(s), encodeBufferArray(p.keys), p.where ? 'true' : 'false', String(p.count), nowArg()],
      (rows) => (rows.length === 0 ? kNullArray
        : statusReply({}, () => goneNoted(rows, 4, [rows[0][1] as Buffer, elements(rows, 2, true, true)]))(rows)));
  },
});
