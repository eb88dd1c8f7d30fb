/**
 * ZCOUNT key min max — members with a score in range; ZLEXCOUNT key min max — members in a lex
 * range (meaningful when all scores are equal). Bounds: ./bounds.ts.
 * https://redis.io/commands/zcount/
 */
import { RespError } from '../../reply';
import { KeyType } from '../../key-store';
import { dbArg, exec, int8Reply, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { f8, parseLexRange, parseScoreRange } from './bounds';
import { kZsetSql } from './sql';

export const zcount = defineCommand({
  name: 'zcount', arity: 4, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'sortedset', 'fast'],
  group: 'sorted-set', since: '2.0.0', summary: 'Returns the count of members in a sorted set that have scores within a range.',
  complexity: 'O(log(N)) with N being the number of elements in the sorted set.',
  run(s, argv) {
    const r = parseScoreRange(argv[2], argv[3]);
    if (r instanceof RespError) return r;
    return exec(s, kZsetSql.count, [dbArg(s), argv[1], f8(r.lo), f8(r.hi), nowArg()], typedRead(KeyType.Zset, 0, (rows) => int8Reply(rows[0][1])));
  },
});

export const zlexcount = defineCommand({
  name: 'zlexcount', arity: 4, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'sortedset', 'fast'],
  group: 'sorted-set', since: '2.8.9', summary: 'Returns the number of members in a sorted set within a lexicographical range.',
  complexity: 'O(log(N)) with N being the number of elements in the sorted set.',
  run(s, argv) {
    const r = parseLexRange(argv[2], argv[3]);
    if (r instanceof RespError) return r;
    const values = r.hi === null ? [dbArg(s), argv[1], r.lo, nowArg()] : [dbArg(s), argv[1], r.lo, r.hi, nowArg()];
    return exec(s, r.hi === null ? kZsetSql.lexCountOpen : kZsetSql.lexCount, values,
      typedRead(KeyType.Zset, 0, (rows) => int8Reply(rows[0][1])));
  },
});
