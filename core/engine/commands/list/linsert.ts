/**
 * LINSERT key BEFORE|AFTER pivot element — the new length, -1 without the pivot, 0 without the
 * key. The shorter side of the list shifts by one (l_insert).
 * https://redis.io/commands/linsert/
 */
import { Err } from '../../resp-errors';
import { eqIgnoreCase } from '../args';
import { dbArg, exec, int8Reply, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { whenDone } from '../events';
import { kOneKey } from '../spec';
import { kListSql } from './sql';

export const linsert = defineCommand({
  name: 'linsert', arity: 5, flags: ['write', 'denyoom'], keys: kOneKey, acl: ['write', 'list', 'slow'],
  events: whenDone('linsert'),
  group: 'list', since: '2.2.0', summary: 'Inserts an element before or after another element in a list.',
  complexity: 'O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N).',
  run(s, argv) {
    const after = eqIgnoreCase(argv[2], 'after');
    if (!after && !eqIgnoreCase(argv[2], 'before')) return Err.syntax;
    return exec(s, kListSql.insert, [dbArg(s), argv[1], after ? 'true' : 'false', argv[3], argv[4], nowArg()],
      statusReply({}, (rows) => int8Reply(rows[0][1])));
  },
});
