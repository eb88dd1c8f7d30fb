/**
 * PING [message] — answers PONG, or the message as a bulk string; a RESP2 client holding a
 * subscription gets Redis's ["pong", message or ""] instead.
 * https://redis.io/commands/ping/
 */
import { Raw } from '../../reply';
import { wrongArity } from '../../resp-errors';
import { defineCommand } from '../define';

const kPong = new Raw(Buffer.from('+PONG\r\n'));
const kPingArity = wrongArity('ping');
const kPongWord = Buffer.from('pong');
const kEmpty = Buffer.alloc(0);

export const ping = defineCommand({
  name: 'ping', arity: -1, flags: ['fast', 'sentinel'], acl: ['fast', 'connection'],
  tips: ['request_policy:all_shards', 'response_policy:all_succeeded'],
  group: 'connection', summary: 'Returns the server\'s liveliness response.',
  run(s, argv) {
    if (argv.length > 2) return kPingArity;
    if (s.proto === 2 && s.subscriptions?.active === true) return [kPongWord, argv.length === 2 ? argv[1] : kEmpty];
    return argv.length === 2 ? argv[1] : kPong;
  },
});
