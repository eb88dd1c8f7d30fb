/**
 * SMOVE source destination member — 1 when member moved (destination created if needed), 0 when
 * source lacks it. Both keys are locked in key order inside s_move.
 * https://redis.io/commands/smove/
 */
import { Noted } from '../../pending-reply';
import { dbArg, exec, nowArg, statusReply } from '../exec';
import { defineCommand } from '../define';
import { smoveEvents } from './events';
import { kSetSql } from './sql';

export const smove = defineCommand({
  name: 'smove', arity: 4, flags: ['write', 'fast'], keys: { first: 1, last: 2, step: 1 }, acl: ['write', 'set', 'fast'],
  events: smoveEvents,
  group: 'set', since: '1.0.0', summary: 'Moves a member from one set to another.', complexity: 'O(1)',
  run: (s, argv) => exec(s, kSetSql.move, [dbArg(s), argv[1], argv[2], argv[3], nowArg()],
    // note: 1 the source went, 2 the destination did not hold the member (set/events.ts)
    statusReply({}, (rows) => new Noted(rows[0][0] as number, (rows[0][1] === true ? 1 : 0) | (rows[0][2] === true ? 2 : 0)))),
});
