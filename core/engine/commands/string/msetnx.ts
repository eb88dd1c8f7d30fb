/**
 * MSETNX key value [key value …] — sets every key, or none if any of them exists: 1 or 0.
 * A key named twice takes its last value, as in Redis.
 * https://redis.io/commands/msetnx/
 */
import { wrongArity } from '../../resp-errors';
import { defineCommand } from '../define';
import { msetnxEvents } from './events';
import { dbArg, nowArg } from '../exec';
import { encodeBufferArray } from '../../pg-driver/binary-array';
import { writeOrder } from '../../write-order';
import { kStringSql } from './sql';

const kArity = wrongArity('msetnx');

export const msetnx = defineCommand({
  name: 'msetnx', arity: -3, flags: ['write', 'denyoom'], keys: { first: 1, last: -1, step: 2 },
  events: msetnxEvents,
  tips: ['request_policy:multi_shard', 'response_policy:agg_min'],
  acl: ['write', 'string', 'slow'], group: 'string', since: '1.0.1', complexity: 'O(N)',
  summary: 'Atomically modifies the string values of one or more keys only when all keys don\'t exist.',
  run(s, argv) {
    if (argv.length % 2 === 0) return kArity;
    const n = (argv.length - 1) / 2;
    const keys = new Array<Buffer>(n);
    for (let i = 0; i < n; i++) keys[i] = argv[1 + 2 * i];
    // the last value of each key, rows locked in key order like every multi-row write (no deadlocks)
    const order = writeOrder(new Int16Array(n), keys);
    const values = [dbArg(s), encodeBufferArray(order.map((i) => keys[i])), encodeBufferArray(order.map((i) => argv[2 + 2 * i])), nowArg()];
    return s.server.store.exec(s, kStringSql.msetnx, values, (rows) => rows[0][0] as number);
  },
});
