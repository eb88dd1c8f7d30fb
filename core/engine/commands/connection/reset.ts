/**
 * RESET — back to a new connection's state: db 0, RESP2, no name, reply on, and unauthenticated
 * when a password is set.
 * https://redis.io/commands/reset/
 */
import { Simple } from '../../reply';
import { defineCommand } from '../define';
import { unwatchAll } from '../transactions/watch';

const kReset = new Simple('RESET');

export const reset = defineCommand({
  name: 'reset', arity: 1, flags: ['noscript', 'loading', 'stale', 'fast', 'no_auth', 'allow_busy'],
  acl: ['fast', 'connection'], group: 'connection', since: '6.2.0', summary: 'Resets the connection.',
  run(session) {
    unwatchAll(session);
    // answered once no PUBLISH anywhere counts its subscriptions (as UNSUBSCRIBE is)
    const left = session.reset();
    return left === undefined ? kReset : left.then(() => kReset);
  },
});
