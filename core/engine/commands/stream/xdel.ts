/**
 * XDEL key id [id …] — entries deleted. Every id is parsed before anything is deleted.
 * https://redis.io/commands/xdel/
 */
import { RespError } from '../../reply';
import { dbArg, exec, int8Reply, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { whenDoneAt } from './events';
import { idArrays } from './ids-arg';
import { kStreamSql } from './sql';
import { afterKeyCheck } from './xack';

export const xdel = defineCommand({
  name: 'xdel', arity: -3, flags: ['write', 'fast'], keys: kOneKey, acl: ['write', 'stream', 'fast'],
  events: whenDoneAt('xdel', 1),
  group: 'stream', since: '5.0.0', summary: 'Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.',
  complexity: 'O(1) for each single item to delete in the stream, regardless of the stream size.',
  run(s, argv) {
    const ids = idArrays(argv, 2);
    if (ids instanceof RespError) return afterKeyCheck(s, argv[1], ids, 0);
    return exec(s, kStreamSql.del, [dbArg(s), argv[1], ids.ms, ids.seq, nowArg()], statusReply({}, (rows) => int8Reply(rows[0][1])));
  },
});
