/**
 * LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len] — indexes of matches: one (or
 * nil) without COUNT, an array with it (COUNT 0 = all). Negative RANK searches from the tail.
 * https://redis.io/commands/lpos/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { KeyType } from '../../key-store';
import { eqIgnoreCase, parseI64 } from '../args';
import { positiveLong } from '../collection/args';
import { dbArg, exec, int8Reply, int8, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kListSql } from './sql';

const kRankZero = new RespError('ERR RANK can\'t be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list');
const kCountNegative = new RespError('ERR COUNT can\'t be negative');
const kMaxlenNegative = new RespError('ERR MAXLEN can\'t be negative');
const kLongMin = -9223372036854775808n;

export const lpos = defineCommand({
  name: 'lpos', arity: -3, flags: ['readonly'], keys: kOneKey, acl: ['read', 'list', 'slow'],
  group: 'list', since: '6.0.6', summary: 'Returns the index of matching elements in a list.',
  complexity: 'O(N) where N is the number of elements in the list, for the average case. When searching for elements near the head or the tail of the list, or when the MAXLEN option is provided, the command may run in constant time.',
  run(s, argv) {
    let rank = 1n;
    let count: bigint | undefined;
    let maxlen = 0n;
    for (let i = 3; i < argv.length; i++) {
      const more = i + 1 < argv.length;
      if (more && eqIgnoreCase(argv[i], 'rank')) {
        const r = parseI64(argv[++i]);
        if (r === undefined) return Err.notInteger;
        if (r === 0n) return kRankZero;
        rank = r;
      } else if (more && eqIgnoreCase(argv[i], 'count')) {
        const c = positiveLong(argv[++i], kCountNegative);
        if (c instanceof RespError) return c;
        count = c;
      } else if (more && eqIgnoreCase(argv[i], 'maxlen')) {
        const m = positiveLong(argv[++i], kMaxlenNegative);
        if (m instanceof RespError) return m;
        maxlen = m;
      } else {
        return Err.syntax;
      }
    }
    // Redis negates LONG_MIN into itself: matches from the tail, and its COUNT test overflows
    // (every match is returned)
    if (rank === kLongMin) { rank = -1n; if (count !== undefined) count = 0n; }
    const stmt = rank > 0n ? kListSql.posForward : kListSql.posBackward;
    const skip = (rank > 0n ? rank : -rank) - 1n;
    const limit = count === undefined ? 1n : count === 0n ? null : count;
    const values = [dbArg(s), argv[1], argv[2], int8(skip), limit === null ? null : int8(limit), int8(maxlen), nowArg()];
    return exec(s, stmt, values, typedRead(KeyType.List, count === undefined ? null : [], (rows) => {
      const found = rows.filter((r) => r[1] !== null).map((r) => int8Reply(r[1]));
      return count === undefined ? found[0] ?? null : found;
    }));
  },
});
