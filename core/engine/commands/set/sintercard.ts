/**
 * SINTERCARD numkeys key [key …] [LIMIT limit] — the size of the intersection, counting stops at
 * limit (0 = no limit).
 * https://redis.io/commands/sintercard/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase } from '../args';
import { parseNumKeys, positiveLong } from '../collection/args';
import { encodeBufferArray, dbArg, exec, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { kCountedKeys } from '../spec';
import { kSetSql } from './sql';
import { SetOp } from './sinter';

const kLimitNegative = new RespError('ERR LIMIT can\'t be negative');

export const sintercard = defineCommand({
  name: 'sintercard', arity: -3, flags: ['readonly'], keys: kCountedKeys, acl: ['read', 'set', 'slow'],
  group: 'set', since: '7.0.0', summary: 'Returns the number of members of the intersect of multiple sets.',
  complexity: 'O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.',
  run(s, argv) {
    const n = parseNumKeys(argv, 1);
    if (n instanceof RespError) return n;
    let limit = 0n;
    for (let i = 2 + n; i < argv.length; i += 2) {
      if (!(eqIgnoreCase(argv[i], 'limit') && i + 1 < argv.length)) return Err.syntax;
      const l = positiveLong(argv[i + 1], kLimitNegative);
      if (l instanceof RespError) return l;
      limit = l;
    }
    return exec(s, kSetSql.combine, [dbArg(s), String(SetOp.Inter), encodeBufferArray(argv.slice(2, 2 + n)), String(limit), nowArg()],
      (rows) => (rows.length === 0 ? 0 : statusReply({}, () => rows.length)(rows)));
  },
});
