/**
 * TIME — the server's clock as [unix seconds, microseconds].
 * https://redis.io/commands/time/
 */
import { defineCommand } from '../define';

export const time = defineCommand({
  name: 'time', arity: 1, flags: ['loading', 'stale', 'fast'], acl: ['fast'], since: '2.6.0',
  tips: ['nondeterministic_output'],
  summary: 'Returns the server time.',
  run() {
    const us = BigInt(Date.now()) * 1000n + (process.hrtime.bigint() / 1000n) % 1000n;
    return [String(us / 1000000n), String(us % 1000000n)];
  },
});
