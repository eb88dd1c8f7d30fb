/**
 * PFADD key [element …] — 1 when a register changed (or the key was created), else 0.
 * https://redis.io/commands/pfadd/
 */
import { dbArg, exec, nowArg } from '../exec';
import { defineCommand } from '../define';
import { whenDone } from '../events';
import { kOneKey } from '../spec';
import { kHllErrors } from './errors';
import { freshValue, kFreshFrom } from './fresh';
import { registerOp } from './murmur';
import { kHllSql } from './sql';

export const pfadd = defineCommand({
  name: 'pfadd', arity: -2, flags: ['write', 'denyoom', 'fast'], events: whenDone('pfadd'), keys: kOneKey, acl: ['hyperloglog'],
  group: 'hyperloglog', since: '2.8.9', summary: 'Adds elements to a HyperLogLog key. Creates the key if it doesn\'t exist.',
  complexity: 'O(1) to add every element.',
  run(s, argv) {
    const ops = new Int32Array(argv.length - 2);
    for (let i = 2; i < argv.length; i++) ops[i - 2] = registerOp(argv[i]);
    const max = s.server.config.int('hll-sparse-max-bytes');
    const fresh = ops.length >= kFreshFrom ? freshValue(ops, max) : null;
    return exec(s, kHllSql.add, [dbArg(s), argv[1], ops, String(max), fresh, nowArg()], (rows) => {
      const status = rows[0][0] as number;
      return kHllErrors[status] ?? (rows[0][1] as number);
    });
  },
});
