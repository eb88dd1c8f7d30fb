/**
 * XCLAIM key group consumer min-idle-time id [id …] [IDLE ms] [TIME unix-ms] [RETRYCOUNT n]
 * [FORCE] [JUSTID] [LASTID id] — the entries (or ids) now pending for the consumer. Ids run up to
 * the first argument that is not one; the options follow. NOGROUP and WRONGTYPE come first.
 * https://redis.io/commands/xclaim/
 */
import { Noted } from '../../pending-reply';
import { RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, lower, parseI64 } from '../args';
import { dbArg, exec, nowArg } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import type { Session } from '../../session';
import { claimEvents } from './events';
import { parseFullId, parseId, sqlIdText, toSql, type StreamId } from './id';
import { idArrays } from './ids-arg';
import { entryReply, noGroup } from './reply';
import { kStreamSql } from './sql';

const kMinIdle = new RespError('ERR Invalid min-idle-time argument for XCLAIM');
const optError = (name: string) => new RespError(`ERR Invalid ${name} option argument for XCLAIM`);

/** NOGROUP / WRONGTYPE before the arguments: one read of the key and group */
function groupCheck(s: Session, key: Buffer, grp: Buffer, then: () => Reply | PromiseLike<Reply>): PromiseLike<Reply> {
  return exec(s, kStreamSql.pendingSum, [dbArg(s), key, grp, nowArg()], (rows) => {
    const st = rows[0][0] as number;
    return st === 2 ? Err.wrongType : st === 5 ? noGroup(key, grp) : null;
  }).then((r) => (r === null ? then() : r));
}

export const xclaim = defineCommand({
  name: 'xclaim', arity: -6, flags: ['write', 'fast'], keys: kOneKey, acl: ['write', 'stream', 'fast'], tips: ['nondeterministic_output'],
  events: claimEvents,
  group: 'stream', since: '5.0.0', summary: 'Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.',
  complexity: 'O(log N) with N being the number of messages in the PEL of the consumer group.',
  run(s, argv) {
    const now = Date.now();
    const minIdle = parseI64(argv[4]);
    let j = 5;
    while (j < argv.length && parseId(argv[j], 0n, true) !== undefined) j++;
    const ids = idArrays(argv, 5, j);
    let time = -1n;
    let retry = -1n;
    let force = false;
    let justid = false;
    let last: StreamId | undefined;
    let err: RespError | undefined = minIdle === undefined ? kMinIdle : undefined;
    for (; err === undefined && j < argv.length; j++) {
      const more = argv.length - 1 - j;
      const o = argv[j];
      if (eqIgnoreCase(o, 'force')) force = true;
      else if (eqIgnoreCase(o, 'justid')) justid = true;
      else if ((eqIgnoreCase(o, 'idle') || eqIgnoreCase(o, 'time') || eqIgnoreCase(o, 'retrycount')) && more > 0) {
        const n = parseI64(argv[++j]);
        const name = lower(o).toUpperCase();
        if (n === undefined) { err = optError(name); break; }
        if (name === 'IDLE') time = BigInt(now) - n;
        else if (name === 'TIME') time = n;
        else retry = n;
      } else if (eqIgnoreCase(o, 'lastid') && more > 0) {
        const id = parseFullId(argv[++j], 0n, true);
        if (id instanceof RespError) { err = id; break; }
        last = id;
      } else {
        err = new RespError(`ERR Unrecognized XCLAIM option '${o.toString('latin1')}'`);
      }
    }
    if (err !== undefined || ids instanceof RespError) {
      const e = err ?? ids as RespError;
      return groupCheck(s, argv[1], argv[2], () => e);
    }
    if (time < 0n || time > BigInt(now)) time = BigInt(now);
    return exec(s, kStreamSql.claim, [dbArg(s), argv[1], argv[2], argv[3], minIdle! < 0n ? 0n : minIdle!, ids.ms, ids.seq, time,
      retry, force, justid, last ? toSql(last.ms) : null, last ? toSql(last.seq) : null, String(now)], (rows) => {
      if (rows.length > 0 && rows[0][0] === 2) return Err.wrongType;
      if (rows.length > 0 && rows[0][0] === 5) return noGroup(argv[1], argv[2]);
      // a row of status 8: the consumer was made (the note, for the event xgroup-createconsumer)
      const entries = rows.filter((r) => r[0] !== 8);
      return new Noted(entries.map((r) => (justid ? sqlIdText(r[1], r[2]) : r[3] === null ? null : entryReply(r[1], r[2], r[3]))),
        entries.length < rows.length ? 1 : 0);
    });
  },
});
