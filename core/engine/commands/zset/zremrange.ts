/**
 * ZREMRANGEBYRANK key start stop | ZREMRANGEBYSCORE key min max | ZREMRANGEBYLEX key min max —
 * members removed; one generic over the kind of range (bounds: ./bounds.ts).
 * https://redis.io/commands/zremrangebyscore/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { parseI64 } from '../args';
import { dbArg, exec, int8, nowArg, statusReply, countNoted } from '../exec';
import { defineCommand } from '../define';
import { whenRemoved } from '../events';
import { kOneKey, type CommandSpec } from '../spec';
import { f8, parseLexRange, parseScoreRange } from './bounds';
import { kZsetSql } from './sql';
import { RangeKind } from './zrange';

function bounds(kind: RangeKind, a: Buffer, b: Buffer): unknown[] | RespError {
  if (kind === RangeKind.Rank) {
    const x = parseI64(a);
    const y = parseI64(b);
    if (x === undefined || y === undefined) return Err.notInteger;
    return [int8(x), int8(y), '0', '0', null, null];
  }
  if (kind === RangeKind.Score) {
    const r = parseScoreRange(a, b);
    return r instanceof RespError ? r : ['0', '0', f8(r.lo), f8(r.hi), null, null];
  }
  const r = parseLexRange(a, b);
  return r instanceof RespError ? r : ['0', '0', '0', '0', r.lo, r.hi];
}

function remRange(name: string, kind: RangeKind, since: string, summary: string): CommandSpec {
  return defineCommand({
    name, arity: 4, flags: ['write'], keys: kOneKey, acl: ['write', 'sortedset', 'slow'], group: 'sorted-set', since, summary,
    events: whenRemoved(name),
    complexity: 'O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.',
    run(s, argv) {
      const b = bounds(kind, argv[2], argv[3]);
      if (b instanceof RespError) return b;
      return exec(s, kZsetSql.remRange, [dbArg(s), argv[1], String(kind), ...b, nowArg()], statusReply({}, countNoted));
    },
  });
}

export const zremrangebyrank = remRange('zremrangebyrank', RangeKind.Rank, '2.0.0', 'Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members were removed.');
export const zremrangebyscore = remRange('zremrangebyscore', RangeKind.Score, '1.2.0', 'Removes members in a sorted set within a range of scores. Deletes the sorted set if all members were removed.');
export const zremrangebylex = remRange('zremrangebylex', RangeKind.Lex, '2.8.9', 'Removes members in a sorted set within a lexicographical range. Deletes the sorted set if all members were removed.');
