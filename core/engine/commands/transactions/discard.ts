/**
 * DISCARD — drop the queued commands and every WATCH.
 * https://redis.io/commands/discard/
 */
import { RespError } from '../../reply';
import { kOk } from '../../shared-replies';
import { defineCommand } from '../define';
import { unwatchAll } from './watch';

const kWithout = new RespError('ERR DISCARD without MULTI');

export const discard = defineCommand({
  name: 'discard', arity: 1, flags: ['noscript', 'loading', 'stale', 'fast', 'allow_busy'], acl: ['fast', 'transaction'],
  group: 'transactions', since: '2.0.0', summary: 'Discards a transaction.',
  run(s) {
    if (s.multi === undefined) return kWithout;
    s.multi = undefined;
    s.multiAborted = false;
    unwatchAll(s);
    return kOk;
  },
});
