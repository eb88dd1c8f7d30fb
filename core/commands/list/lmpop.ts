/**
 * LMPOP numkeys key [key …] LEFT|RIGHT [COUNT count] — [key, [elements]] from the first
 * non-empty list, or a null array.
 * https://redis.io/commands/lmpop/
 */
import { RespError, kNullArray } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase } from '../args';
import { kLongMax, rangeLong } from '../collection/args';
import { encodeBufferArray, dbArg, exec, nowArg, statusReply } from '../collection/exec';
import { defineCommand } from '../define';
import { kNoKeys } from '../spec';
import { side } from './lmove';
import { kListSql } from './sql';

const kNumKeys = new RespError('ERR numkeys should be greater than 0');
const kCount = new RespError('ERR count should be greater than 0');

export const lmpop = defineCommand({
  name: 'lmpop', arity: -4, flags: ['write'], keys: kNoKeys, acl: ['write', 'list', 'slow'],
  group: 'list', since: '7.0.0', summary: 'Returns multiple elements from a list after removing them. Deletes the list if the last element was popped.',
  complexity: 'O(N+M) where N is the number of provided keys and M is the number of elements returned.',
  run(s, argv) {
    const n = rangeLong(argv[1], 1n, kLongMax, kNumKeys);
    if (n instanceof RespError) return n;
    const at = 2 + Number(n);
    if (n > BigInt(argv.length - 3) || at >= argv.length) return Err.syntax;
    const left = side(argv[at]);
    if (left === undefined) return Err.syntax;
    let count: bigint | undefined;
    for (let i = at + 1; i < argv.length; i++) {
      if (count !== undefined || !eqIgnoreCase(argv[i], 'count') || i + 1 >= argv.length) return Err.syntax;
      const c = rangeLong(argv[++i], 1n, kLongMax, kCount);
      if (c instanceof RespError) return c;
      count = c;
    }
    const keys = argv.slice(2, at);
    return exec(s, kListSql.mpop, [dbArg(s), encodeBufferArray(keys), left ? 'true' : 'false', String(count ?? 1n), nowArg()],
      (rows) => (rows.length === 0 ? kNullArray
        : statusReply({}, () => [rows[0][1] as Buffer, rows.map((r) => r[2] as Buffer)])(rows)));
  },
});
