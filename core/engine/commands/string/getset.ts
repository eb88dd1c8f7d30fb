/**
 * GETSET key value — sets the value (and clears the TTL), answers the old value or nil.
 * https://redis.io/commands/getset/
 */
import { SetCond } from '../../key-store';
import { setGetReply } from './set';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';

export const getset = defineCommand({
  name: 'getset', arity: 3, flags: ['write', 'denyoom', 'fast'], keys: kOneKey, acl: ['write', 'string', 'fast'],
  events: 'set',
  group: 'string', summary: 'Returns the previous string value of a key after setting it to a new value.', complexity: 'O(1)',
  run: (s, argv) => s.server.store.setCond(s, argv[1], { value: argv[2], expiresAt: null, cond: SetCond.None, keepTtl: false, get: true }, setGetReply),
});
