/**
 * BLPOP | BRPOP key [key …] timeout — [key, element] from the first non-empty list, blocking
 * up to timeout seconds (0 = forever) until a push fills one; a null array on timeout.
 * https://redis.io/commands/blpop/
 */
import { RespError, kNullArray } from '../../reply';
import { encodeBufferArray, nowArg } from '../exec';
import { blockingCommand, served } from '../blocking/pop';
import { parseTimeout } from '../blocking/timeout';
import type { CommandSpec } from '../spec';
import { kListSql } from './sql';

function bpop(name: string, left: boolean, summary: string): CommandSpec {
  return blockingCommand({
    name, arity: -3, flags: ['write', 'noscript', 'blocking'], keys: { first: 1, last: -2, step: 1 },
    acl: ['write', 'list', 'slow'], group: 'list', since: '2.0.0', summary,
    complexity: 'O(N) where N is the number of provided keys.',
    events: (emit, db, _argv, reply) => {
      if (!Array.isArray(reply)) return;
      emit(db, left ? 'lpop' : 'rpop', reply[0] as Buffer, false);
      emit(db, 'del', reply[0] as Buffer, true);
    },
  }, (s, argv) => {
    const timeoutMs = parseTimeout(argv[argv.length - 1]);
    if (timeoutMs instanceof RespError) return timeoutMs;
    const keys = argv.slice(1, -1);
    const encoded = encodeBufferArray(keys);
    return {
      timeoutMs,
      plan: {
        keys, stmt: kListSql.bpop, timeoutReply: kNullArray,
        values: (seq, block) => [String(s.db), encoded, left ? 'true' : 'false', '1', nowArg(), seq, block ? 'true' : 'false'],
        reply: (rows) => {
          const r = served(rows)[0];
          return [r[1] as Buffer, r[2] as Buffer];
        },
      },
    };
  });
}

export const blpop = bpop('blpop', true, 'Removes and returns the first element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.');
export const brpop = bpop('brpop', false, 'Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.');
