/**
 * PING [message] — answers PONG, or the message as a bulk string.
 * https://redis.io/commands/ping/
 */
import { Raw } from '../../reply';
import { wrongArity } from '../../resp-errors';
import { defineCommand } from '../define';

const kPong = new Raw(Buffer.from('+PONG\r\n'));
const kPingArity = wrongArity('ping');

export const ping = defineCommand({
  name: 'ping', arity: -1, flags: ['fast', 'sentinel'], acl: ['fast', 'connection'],
  tips: ['request_policy:all_shards', 'response_policy:all_succeeded'],
  group: 'connection', summary: 'Returns the server\'s liveliness response.',
  run(_s, argv) {
    if (argv.length > 2) return kPingArity;
    return argv.length === 2 ? argv[1] : kPong;
  },
});
