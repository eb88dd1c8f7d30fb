/**
 * SETNX key value — sets the key only if it does not exist (of any type): 1 when set, else 0.
 * https://redis.io/commands/setnx/
 */
import { SetCond, type Rows } from '../../key-store';
import type { Reply } from '../../reply';
import { Err } from '../../resp-errors';
import { defineCommand } from '../define';
import { whenDone } from '../events';
import { kOneKey } from '../spec';

/** set_cond's status: 1 when set, 0 when the key existed */
function setnxReply(rows: Rows): Reply {
  const status = rows[0][0] as number;
  return status === 2 ? Err.wrongType : status === 1 ? 1 : 0;
}

export const setnx = defineCommand({
  name: 'setnx', arity: 3, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'string', 'fast'],
  events: whenDone('set'),
  group: 'string', summary: 'Set the string value of a key only when the key doesn\'t exist.', complexity: 'O(1)',
  run: (s, argv) => s.server.store.setCond(s, argv[1], { value: argv[2], expiresAt: null, cond: SetCond.Nx, keepTtl: false, get: false },
    setnxReply),
});
