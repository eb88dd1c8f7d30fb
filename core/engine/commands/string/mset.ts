/**
 * MSET key value [key value …] — all keys set at once (one statement, one transaction).
 * https://redis.io/commands/mset/
 */
import { wrongArity } from '../../resp-errors';
import { defineCommand } from '../define';
import { WriteOp } from '../../ops';

const kArity = wrongArity('mset');

export const mset = defineCommand({
  name: 'mset', arity: -3, flags: ['write', 'denyoom'], keys: { first: 1, last: -1, step: 2 },
  events: 'set',
  tips: ['request_policy:multi_shard', 'response_policy:all_succeeded'],
  acl: ['write', 'string', 'slow'], group: 'string', since: '1.0.1',
  summary: 'Atomically creates or modifies the string values of one or more keys.',
  complexity: 'O(N)',
  run(s, argv) {
    if (argv.length % 2 === 0) return kArity;
    return s.server.store.submit(s, new WriteOp(s.db, null, null, argv.slice(1), null));
  },
});
