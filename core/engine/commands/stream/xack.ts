/**
 * XACK key group id [id …] — pending entries acknowledged (removed from the group's PEL).
 * WRONGTYPE comes before an invalid id, as Redis looks the key up first.
 * https://redis.io/commands/xack/
 */
import { RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import { dbArg, exec, int8Reply, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kNoEvents } from './events';
import { idArrays } from './ids-arg';
import { kStreamSql } from './sql';
import type { Session } from '../../session';

/** `err` for an existing stream; WRONGTYPE for another type, `missing` for no key (Redis looks the key up first) */
export function afterKeyCheck(s: Session, key: Buffer, err: RespError, missing: Reply) {
  return exec(s, kStreamSql.type, [dbArg(s), key, nowArg()], (rows) =>
    (rows.length === 0 ? missing : rows[0][0] !== 5 ? Err.wrongType : err));
}

export const xack = defineCommand({
  name: 'xack', arity: -4, flags: ['write', 'fast'], keys: kOneKey, acl: ['write', 'stream', 'fast'], events: kNoEvents,
  group: 'stream', since: '5.0.0', summary: 'Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.',
  complexity: 'O(1) for each message ID processed.',
  run(s, argv) {
    const ids = idArrays(argv, 3);
    if (ids instanceof RespError) {
      // no key or no group: 0 before the ids are looked at
      return exec(s, kStreamSql.pendingSum, [dbArg(s), argv[1], argv[2], nowArg()], (rows) => {
        const st = rows[0][0] as number;
        return st === 2 ? Err.wrongType : st === 5 ? 0 : ids;
      });
    }
    return exec(s, kStreamSql.ack, [dbArg(s), argv[1], argv[2], ids.ms, ids.seq, nowArg()], statusReply({}, (rows) => int8Reply(rows[0][1])));
  },
});
