/**
 * LMOVE source destination LEFT|RIGHT LEFT|RIGHT | RPOPLPUSH source destination (= RIGHT LEFT)
 * — the element moved, nil when source is missing. Both keys locked in key order (l_move);
 * source = destination rotates the list.
 * https://redis.io/commands/lmove/
 */
import { Err } from '../../resp-errors';
import { eqIgnoreCase } from '../args';
import { dbArg, exec, goneNoted, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { lmoveEvents, rpoplpushEvents } from './events';
import type { CommandSpec } from '../spec';
import { kListSql } from './sql';

/** LEFT → true, RIGHT → false, else undefined (syntax error) */
export function side(b: Buffer): boolean | undefined {
  if (eqIgnoreCase(b, 'left')) return true;
  if (eqIgnoreCase(b, 'right')) return false;
  return undefined;
}

function move(s: Parameters<CommandSpec['run']>[0], src: Buffer, dst: Buffer, fromLeft: boolean, toLeft: boolean) {
  return exec(s, kListSql.move, [dbArg(s), src, dst, fromLeft ? 'true' : 'false', toLeft ? 'true' : 'false', nowArg()],
    statusReply({}, (rows) => (rows[0][0] === 0 ? null : goneNoted(rows, 2, rows[0][1] as Buffer))));
}

export const lmove = defineCommand({
  name: 'lmove', arity: 5, flags: ['write', 'denyoom'], keys: { first: 1, last: 2, step: 1 }, acl: ['write', 'list', 'slow'],
  events: lmoveEvents,
  group: 'list', since: '6.2.0', summary: 'Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was moved.',
  complexity: 'O(1)',
  run(s, argv) {
    const from = side(argv[3]);
    const to = side(argv[4]);
    if (from === undefined || to === undefined) return Err.syntax;
    return move(s, argv[1], argv[2], from, to);
  },
});

export const rpoplpush = defineCommand({
  name: 'rpoplpush', arity: 3, flags: ['write', 'denyoom'], keys: { first: 1, last: 2, step: 1 }, acl: ['write', 'list', 'slow'],
  events: rpoplpushEvents,
  group: 'list', since: '1.2.0', summary: 'Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element was popped.',
  complexity: 'O(1)',
  run: (s, argv) => move(s, argv[1], argv[2], false, true),
});
