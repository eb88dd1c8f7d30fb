/**
 * PFMERGE destkey [sourcekey …] — destkey becomes the union of itself and the sources.
 * https://redis.io/commands/pfmerge/
 */
import { kOk } from '../../shared-replies';
import { encodeBufferArray, dbArg, exec, nowArg } from '../exec';
import { defineCommand } from '../define';
import { kAllKeys } from '../spec';
import { kHllErrors } from './errors';
import { pfmergeEvents } from './events';
import { kHllSql } from './sql';

export const pfmerge = defineCommand({
  name: 'pfmerge', arity: -2, flags: ['write', 'denyoom'], events: pfmergeEvents, keys: kAllKeys, acl: ['hyperloglog'],
  group: 'hyperloglog', since: '2.8.9', summary: 'Merges one or more HyperLogLog values into a single key.',
  complexity: 'O(N) to merge N HyperLogLogs, but with high constant times.',
  run(s, argv) {
    const max = String(s.server.config.int('hll-sparse-max-bytes'));
    return exec(s, kHllSql.merge, [dbArg(s), encodeBufferArray(argv.slice(1)), max, nowArg()], (rows) =>
      kHllErrors[rows[0][0] as number] ?? kOk);
  },
});
