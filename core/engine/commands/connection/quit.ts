/**
 * QUIT — replies OK and closes the connection once every earlier reply is out.
 * https://redis.io/commands/quit/
 */
import { kOk } from '../../shared-replies';
import { defineCommand } from '../define';

export const quit = defineCommand({
  name: 'quit', arity: -1, flags: ['allow_busy', 'noscript', 'loading', 'stale', 'fast', 'no_auth'],
  acl: ['fast', 'connection'], group: 'connection', summary: 'Closes the connection.',
  run(session) {
    session.closeAfterReply();
    return kOk;
  },
});
