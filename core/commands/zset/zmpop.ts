/**
 * ZMPOP numkeys key [key …] MIN|MAX [COUNT count] — [key, [[member, score], …]] from the first
 * non-empty sorted set, or a null array.
 * https://redis.io/commands/zmpop/
 */
import { RespError, kNullArray } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase } from '../args';
import { kLongMax, rangeLong } from '../collection/args';
import { encodeBufferArray, dbArg, exec, nowArg, statusReply } from '../collection/exec';
import { defineCommand } from '../define';
import { kNoKeys } from '../spec';
import { elements } from './reply';
import { kZsetSql } from './sql';

const kNumKeys = new RespError('ERR numkeys should be greater than 0');
const kCount = new RespError('ERR count should be greater than 0');

export const zmpop = defineCommand({
  name: 'zmpop', arity: -4, flags: ['write'], keys: kNoKeys, acl: ['write', 'sortedset', 'slow'],
  group: 'sorted-set', since: '7.0.0', summary: 'Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. Deletes the sorted set if the last member was popped.',
  complexity: 'O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.',
  run(s, argv) {
    const n = rangeLong(argv[1], 1n, kLongMax, kNumKeys);
    if (n instanceof RespError) return n;
    const at = 2 + Number(n);
    if (n > BigInt(argv.length - 3) || at >= argv.length) return Err.syntax;
    const max = eqIgnoreCase(argv[at], 'max');
    if (!max && !eqIgnoreCase(argv[at], 'min')) return Err.syntax;
    let count: bigint | undefined;
    for (let i = at + 1; i < argv.length; i++) {
      if (count !== undefined || !eqIgnoreCase(argv[i], 'count') || i + 1 >= argv.length) return Err.syntax;
      const c = rangeLong(argv[++i], 1n, kLongMax, kCount);
      if (c instanceof RespError) return c;
      count = c;
    }
    return exec(s, kZsetSql.mpop, [dbArg(s), encodeBufferArray(argv.slice(2, at)), max ? 'true' : 'false', String(count ?? 1n), nowArg()],
      (rows) => (rows.length === 0 ? kNullArray
        : statusReply({}, () => [rows[0][1] as Buffer, elements(rows, 2, true, true)])(rows)));
  },
});
