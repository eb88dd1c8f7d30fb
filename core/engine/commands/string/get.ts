/**
 * GET key — the value, nil when missing or expired, WRONGTYPE for other types.
 * https://redis.io/commands/get/
 */
import { kOneKey } from '../spec';
import { defineCommand } from '../define';
import { KeyType } from '../../key-store';
import { kAbsent, ReadOp } from '../../ops';
import type { Reply } from '../../reply';
import { Err } from '../../resp-errors';

/** The read run's result for the key: a string's value, nil when absent, WRONGTYPE otherwise. */
export function getReply(type: number, value: Buffer | null): Reply {
  return type === KeyType.String ? value : type === kAbsent ? null : Err.wrongType;
}

export const get = defineCommand({
  name: 'get', arity: 2, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['read', 'string', 'fast'],
  group: 'string', summary: 'Returns the string value of a key.', complexity: 'O(1)',
  run: (s, argv) => {
    const op = new ReadOp(s.db, argv[1], null, getReply);
    // a hit may be written straight into the client's writer (near-cache.ts): GET's reply is the value itself
    op.sink = s.replySink;
    return s.server.store.submit(s, op);
  },
});
