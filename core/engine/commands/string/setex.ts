/**
 * SETEX key seconds value | PSETEX key milliseconds value — SET with a relative TTL, one generic
 * setex(unit). Batched with plain SETs into one multi-row upsert.
 * https://redis.io/commands/setex/
 */
import { RespError } from '../../reply';
import { WriteOp } from '../../ops';
import { defineCommand } from '../define';
import { setWithTtlEvents } from './events';
import { expireAt } from '../expiry';
import { kOneKey, type CommandSpec } from '../spec';

function setex(name: 'setex' | 'psetex', summary: string): CommandSpec {
  return defineCommand({
    name, arity: 4, flags: ['write', 'denyoom'], keys: kOneKey, acl: ['write', 'string', 'slow'],
    events: setWithTtlEvents,
    group: 'string', summary, since: name === 'setex' ? '2.0.0' : '2.6.0', complexity: 'O(1)',
    run(s, argv) {
      const at = expireAt(name === 'setex' ? 'ex' : 'px', argv[2], name);
      if (at instanceof RespError) return at;
      return s.server.store.submit(s, new WriteOp(s.db, argv[1], argv[3], null, at));
    },
  });
}

export const setexCmd = setex('setex', 'Sets the string value and expiration time of a key. Creates the key if it doesn\'t exist.');
export const psetex = setex('psetex', 'Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn\'t exist.');
