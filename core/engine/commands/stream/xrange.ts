/**
 * XRANGE key start end [COUNT n], XREVRANGE key end start [COUNT n] — entries in the range
 * (`-` `+`, `(id` exclusive, a missing seq is 0 at the start and the largest at the end).
 * COUNT 0 (or negative) answers a null array for an existing stream.
 * https://redis.io/commands/xrange/
 */
import { kNullArray, RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';
import { dbArg, exec, nowArg } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kStreamType, kStreamSql } from './sql';
import { parseEnd, parseStart } from './args';
import { rangeReply } from './reply';
import { toSql } from './id';

function xrangeGeneric(rev: boolean) {
  return defineCommand({
    name: rev ? 'xrevrange' : 'xrange', arity: -4, flags: ['readonly'], keys: kOneKey, acl: ['read', 'stream', 'slow'],
    group: 'stream', since: '5.0.0',
    summary: rev ? 'Returns the messages from a stream within a range of IDs in reverse order.' : 'Returns the messages from a stream within a range of IDs.',
    complexity: 'O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).',
    run(s, argv) {
      const start = parseStart(argv[rev ? 3 : 2]);
      if (start instanceof RespError) return start;
      const end = parseEnd(argv[rev ? 2 : 3]);
      if (end instanceof RespError) return end;
      let count = -1n;
      for (let j = 4; j < argv.length; j++) {
        if (!eqIgnoreCase(argv[j], 'count') || j + 1 >= argv.length) return Err.syntax;
        const n = parseI64(argv[++j]);
        if (n === undefined) return Err.notInteger;
        count = n < 0n ? 0n : n;
      }
      const limit = count === 0n ? 0n : count < 0n ? null : count;
      return exec(s, rev ? kStreamSql.revRange : kStreamSql.range, [dbArg(s), argv[1], toSql(start.ms), toSql(start.seq),
        toSql(end.ms), toSql(end.seq), limit, nowArg()], (rows) => {
        if (count === 0n && rows.length > 0) return rows[0][0] === kStreamType ? kNullArray : Err.wrongType;
        return rangeReply(rows);
      });
    },
  });
}

export const xrange = xrangeGeneric(false);
export const xrevrange = xrangeGeneric(true);
