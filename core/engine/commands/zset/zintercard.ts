/**
 * ZINTERCARD numkeys key [key …] [LIMIT limit] — the size of the intersection of sorted sets (and
 * sets, as in ZINTER), counting stops at limit (0 = no limit). Redis's order of checks: numkeys,
 * then the keys' types (WRONGTYPE), then the options.
 * https://redis.io/commands/zintercard/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';
import { positiveLong } from '../collection/args';
import { encodeBufferArray, dbArg, exec, int8Reply, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { kCountedKeys } from '../spec';
import { ZsetOp } from './zcombine';
import { kZsetSql } from './sql';

const kAtLeastOne = new RespError('ERR at least 1 input key is needed for \'zintercard\' command');
const kLimitNegative = new RespError('ERR LIMIT can\'t be negative');

export const zintercard = defineCommand({
  name: 'zintercard', arity: -3, flags: ['readonly'], keys: kCountedKeys, acl: ['read', 'sortedset', 'slow'],
  group: 'sorted-set', since: '7.0.0', summary: 'Intersect multiple sorted sets and return the cardinality of the result',
  complexity: 'O(N*K) worst case with N being the smallest input sorted set, K being the number of input sorted sets.',
  run(s, argv) {
    const n = parseI64(argv[1]);
    if (n === undefined) return Err.notInteger;
    if (n < 1n) return kAtLeastOne;
    if (n > BigInt(argv.length - 2)) return Err.syntax;
    const keys = encodeBufferArray(argv.slice(2, 2 + Number(n)));
    let limit = 0n;
    let error: RespError | undefined;
    for (let j = 2 + Number(n); j < argv.length && error === undefined; j += 2) {
      if (argv.length - j < 2 || !eqIgnoreCase(argv[j], 'limit')) { error = Err.syntax; break; }
      const l = positiveLong(argv[j + 1], kLimitNegative);
      if (l instanceof RespError) error = l;
      else limit = l;
    }
    if (error !== undefined) {
      const e = error;
      return exec(s, kZsetSql.combine, [dbArg(s), String(ZsetOp.TypesOnly), keys, '{}', '1', nowArg()], statusReply({}, () => e));
    }
    return exec(s, kZsetSql.interCard, [dbArg(s), keys, String(limit), nowArg()], statusReply({}, (rows) => int8Reply(rows[0][1])));
  },
});
