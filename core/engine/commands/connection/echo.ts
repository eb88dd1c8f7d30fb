/**
 * ECHO message — returns the message.
 * https://redis.io/commands/echo/
 */
import { defineCommand } from '../define';

export const echo = defineCommand({
  name: 'echo', arity: 2, flags: ['loading', 'stale', 'fast'], acl: ['fast', 'connection'],
  group: 'connection', summary: 'Returns the given string.',
  run: (_s, argv) => argv[1],
});
