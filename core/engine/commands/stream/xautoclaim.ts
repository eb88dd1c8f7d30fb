/**
 * XAUTOCLAIM key group consumer min-idle-time start [COUNT n] [JUSTID] — [next cursor, claimed
 * entries (or ids), ids whose entries were deleted (dropped from the PEL)]. At most COUNT × 10
 * pending entries are examined per call.
 * https://redis.io/commands/xautoclaim/
 */
import { Noted } from '../../pending-reply';
import { RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';
import { dbArg, exec, nowArg } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { parseStart } from './args';
import { claimEvents } from './events';
import { sqlIdText, toSql } from './id';
import { entryReply, noGroup } from './reply';
import { kStreamSql } from './sql';

const kMinIdle = new RespError('ERR Invalid min-idle-time argument for XAUTOCLAIM');
const kCount = new RespError('ERR COUNT must be > 0');
/** LONG_MAX / 16 (Redis: LONG_MAX / max(sizeof(streamID), attempts factor 10)) */
const kMaxCount = 9223372036854775807n / 16n;

export const xautoclaim = defineCommand({
  name: 'xautoclaim', arity: -6, flags: ['write', 'fast'], keys: kOneKey, acl: ['write', 'stream', 'fast'], tips: ['nondeterministic_output'],
  events: claimEvents,
  group: 'stream', since: '6.2.0', summary: 'Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.',
  complexity: 'O(1) if COUNT is small.',
  run(s, argv) {
    const minIdle = parseI64(argv[4]);
    if (minIdle === undefined) return kMinIdle;
    const start = parseStart(argv[5]);
    if (start instanceof RespError) return start;
    let count = 100n;
    let justid = false;
    for (let j = 6; j < argv.length; j++) {
      if (eqIgnoreCase(argv[j], 'count') && j + 1 < argv.length) {
        const n = parseI64(argv[++j]);
        if (n === undefined || n < 1n || n > kMaxCount) return kCount;
        count = n;
      } else if (eqIgnoreCase(argv[j], 'justid')) {
        justid = true;
      } else {
        return Err.syntax;
      }
    }
    return exec(s, kStreamSql.autoClaim, [dbArg(s), argv[1], argv[2], argv[3], minIdle < 0n ? 0n : minIdle, toSql(start.ms),
      toSql(start.seq), count, justid, String(Date.now())], (rows) => {
      if (rows[0][0] === 2) return Err.wrongType;
      if (rows[0][0] === 5) return noGroup(argv[1], argv[2]);
      const claimed: Reply[] = [];
      const deleted: Reply[] = [];
      let cursor = '0-0';
      let made = 0;
      for (const r of rows) {
        if (r[0] === 1) claimed.push(justid ? sqlIdText(r[1], r[2]) : entryReply(r[1], r[2], r[3]));
        else if (r[0] === 6) deleted.push(sqlIdText(r[1], r[2]));
        else if (r[0] === 8) made = 1; // the consumer was made (the note: xgroup-createconsumer)
        else cursor = sqlIdText(r[1], r[2]);
      }
      return new Noted([cursor, claimed, deleted], made);
    });
  },
});
