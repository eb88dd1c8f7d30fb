/**
 * INCR key | DECR key | INCRBY key n | DECRBY key n — one generic, incrBy(sign, fromArg), like
 * Valkey's incrDecrCommand. The arithmetic and its checks run in Postgres (incr_by function):
 * exact when several lanes or instances increment the same key.
 * https://redis.io/commands/incrby/
 */
import { Err } from '../../resp-errors';
import { RespError } from '../../reply';
import { parseI64 } from '../args';
import { defineCommand } from '../define';
import { kOneKey, type CommandSpec } from '../spec';
import { IncrOp } from '../../ops';
import type { Reply } from '../../reply';

const kMin = -9223372036854775808n;
const kDecrOverflow = new RespError('ERR decrement would overflow');

/** incr_many's status for the op (as incr_by's, core/engine/sql/functions.ts) and the new value */
function incrReply(status: number, value: bigint | null): Reply {
  return status === 2 ? Err.wrongType : status === 3 ? Err.notInteger : status === 4 ? Err.overflow : value;
}

function incrBy(name: string, sign: 1n | -1n, fromArg: boolean, summary: string): CommandSpec {
  return defineCommand({
    name, arity: fromArg ? 3 : 2, flags: ['write', 'denyoom', 'fast'], keys: kOneKey,
    events: 'incrby',
    acl: ['write', 'string', 'fast'], group: 'string', summary, complexity: 'O(1)',
    run(s, argv) {
      let delta = 1n;
      if (fromArg) {
        const v = parseI64(argv[2]);
        if (v === undefined) return Err.notInteger;
        // DECRBY of the smallest int64 cannot be negated (Redis: "decrement would overflow")
        if (sign === -1n && v === kMin) return kDecrOverflow;
        delta = v;
      }
      return s.server.store.submit(s, new IncrOp(s.db, argv[1], sign * delta, incrReply));
    },
  });
}

export const incr = incrBy('incr', 1n, false, 'Increments the integer value of a key by one. Uses 0 as initial value if the key doesn\'t exist.');
export const decr = incrBy('decr', -1n, false, 'Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn\'t exist.');
export const incrby = incrBy('incrby', 1n, true, 'Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn\'t exist.');
export const decrby = incrBy('decrby', -1n, true, 'Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn\'t exist.');
