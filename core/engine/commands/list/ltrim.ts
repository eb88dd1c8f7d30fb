/**
 * LTRIM key start stop — keeps elements start…stop; OK. An empty range deletes the key.
 * https://redis.io/commands/ltrim/
 */
import { Noted } from '../../pending-reply';
import { Err } from '../../resp-errors';
import { kOk } from '../../shared-replies';
import { parseI64 } from '../args';
import { dbArg, exec, int8, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { ltrimEvents } from './events';
import { kOneKey } from '../spec';
import { kListSql } from './sql';

export const ltrim = defineCommand({
  name: 'ltrim', arity: 4, flags: ['write'], keys: kOneKey, acl: ['write', 'list', 'slow'],
  events: ltrimEvents,
  group: 'list', since: '1.0.0', summary: 'Removes elements from both ends a list. Deletes the list if all elements were trimmed.',
  complexity: 'O(N) where N is the number of elements to be removed by the operation.',
  run(s, argv) {
    const start = parseI64(argv[2]);
    const stop = parseI64(argv[3]);
    if (start === undefined || stop === undefined) return Err.notInteger;
    return exec(s, kListSql.trim, [dbArg(s), argv[1], int8(start), int8(stop), nowArg()], statusReply({}, (rows) => new Noted(kOk, rows[0][1] as number)));
  },
});
