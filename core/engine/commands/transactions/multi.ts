/**
 * MULTI — start a transaction: later commands are checked and queued (+QUEUED) until EXEC.
 * https://redis.io/commands/multi/
 */
import { RespError } from '../../reply';
import { kOk } from '../../shared-replies';
import { defineCommand } from '../define';

const kNested = new RespError('ERR MULTI calls can not be nested');

export const multi = defineCommand({
  name: 'multi', arity: 1, flags: ['noscript', 'loading', 'stale', 'fast', 'allow_busy'], acl: ['fast', 'transaction'],
  group: 'transactions', since: '1.2.0', summary: 'Starts a transaction.',
  run(s) {
    if (s.multi !== undefined) return kNested;
    s.multi = [];
    s.multiAborted = false;
    return kOk;
  },
});
