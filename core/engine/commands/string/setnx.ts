/**
 * SETNX key value — sets the key only if it does not exist (of any type): 1 when set, else 0.
 * https://redis.io/commands/setnx/
 */
import { SetCond } from '../../key-store';
import { kOk } from '../../shared-replies';
import { defineCommand } from '../define';
import { whenDone } from '../events';
import { kOneKey } from '../spec';

export const setnx = defineCommand({
  name: 'setnx', arity: 3, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'string', 'fast'],
  events: whenDone('set'),
  group: 'string', summary: 'Set the string value of a key only when the key doesn\'t exist.', complexity: 'O(1)',
  async run(s, argv) {
    const r = await s.server.store.set(s, argv[1], { value: argv[2], expiresAt: null, cond: SetCond.Nx, keepTtl: false, get: false });
    return r === kOk ? 1 : r === null ? 0 : r;
  },
});
