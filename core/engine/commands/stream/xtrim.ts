/**
 * XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count] — entries deleted.
 * https://redis.io/commands/xtrim/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { dbArg, exec, int8Reply, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { parseTrimArgs, trimLimit } from './args';
import { whenDoneAt } from './events';
import { toSql } from './id';
import { nodeMaxEntries } from './node-limits';
import { kStreamSql } from './sql';

export const xtrim = defineCommand({
  name: 'xtrim', arity: -4, flags: ['write'], keys: kOneKey, acl: ['write', 'stream', 'slow'], tips: ['nondeterministic_output'],
  events: whenDoneAt('xtrim', 1),
  group: 'stream', since: '5.0.0', summary: 'Deletes messages from the beginning of a stream.',
  complexity: 'O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.',
  run(s, argv) {
    const a = parseTrimArgs(argv, false);
    if (a instanceof RespError) return a;
    if (a.idAt !== argv.length) return Err.syntax;
    return exec(s, kStreamSql.trim, [dbArg(s), argv[1], String(a.trim), a.approx, a.maxlen, toSql(a.minid.ms), toSql(a.minid.seq),
      trimLimit(a, nodeMaxEntries(s)), nowArg()], statusReply({}, (rows) => int8Reply(rows[0][1])));
  },
});
