/**
 * XPENDING key group [[IDLE min-idle] start end count [consumer]] — the summary (count, lowest and
 * highest id, pending per consumer) or the entries with their consumer, idle time and deliveries.
 * https://redis.io/commands/xpending/
 */
import { kNullArray, RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';
import { dbArg, exec, int8Reply, nowArg } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { parseEnd, parseStart } from './args';
import { sqlIdText, toSql } from './id';
import { noGroup } from './reply';
import { kStreamSql } from './sql';

export const xpending = defineCommand({
  name: 'xpending', arity: -3, flags: ['readonly'], keys: kOneKey, acl: ['read', 'stream', 'slow'], tips: ['nondeterministic_output'],
  group: 'stream', since: '5.0.0', summary: 'Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.',
  complexity: 'O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.',
  run(s, argv) {
    const key = argv[1];
    const grp = argv[2];
    if (argv.length !== 3 && (argv.length < 6 || argv.length > 9)) return Err.syntax;
    const statusError = (st: number): RespError | undefined => (st === 2 ? Err.wrongType : st === 5 ? noGroup(key, grp) : undefined);
    if (argv.length === 3) {
      return exec(s, kStreamSql.pendingSum, [dbArg(s), key, grp, nowArg()], (rows) => {
        const e = statusError(rows[0][0] as number);
        if (e !== undefined) return e;
        const total = int8Reply(rows[0][2]);
        if (Number(total) === 0) return [0, null, null, kNullArray];
        const lo = rows.find((r) => r[3] !== null)!;
        const hi = rows.find((r) => r[5] !== null)!;
        const consumers: Reply[] = rows.filter((r) => r[1] !== null).map((r) => [r[1] as Buffer, String(r[2])]);
        return [total, sqlIdText(lo[3], lo[4]), sqlIdText(hi[5], hi[6]), consumers];
      });
    }
    let at = 3;
    let idle = 0n;
    if (eqIgnoreCase(argv[3], 'idle')) {
      const n = parseI64(argv[4]);
      if (n === undefined) return Err.notInteger;
      if (argv.length < 8) return Err.syntax;
      idle = n;
      at = 5;
    }
    const cnt = parseI64(argv[at + 2]);
    if (cnt === undefined) return Err.notInteger;
    const start = parseStart(argv[at]);
    if (start instanceof RespError) return start;
    const end = parseEnd(argv[at + 1]);
    if (end instanceof RespError) return end;
    const consumer = at + 3 < argv.length ? argv[at + 3] : null;
    return exec(s, kStreamSql.pending, [dbArg(s), key, grp, toSql(start.ms), toSql(start.seq), toSql(end.ms), toSql(end.seq),
      cnt < 0n ? 0n : cnt, idle, consumer, nowArg()], (rows) => {
      if (rows.length > 0) {
        const e = statusError(rows[0][0] as number);
        if (e !== undefined) return e;
      }
      return rows.map((r) => [sqlIdText(r[1], r[2]), r[3] as Buffer, int8Reply(r[4]), int8Reply(r[5])]);
    });
  },
});
