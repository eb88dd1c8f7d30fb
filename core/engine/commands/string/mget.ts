/**
 * MGET key [key …] — values in order; nil for missing keys and for keys of other types.
 * https://redis.io/commands/mget/
 */
import { kAllKeys } from '../spec';
import { defineCommand } from '../define';
import { KeyType } from '../../key-store';
import { ReadOp } from '../../ops';
import type { Reply } from '../../reply';

/** Each key's entry of the array: a string's value, nil for a missing key and for other types. */
export function mgetReply(type: number, value: Buffer | null): Reply {
  return type === KeyType.String ? value : null;
}

export const mget = defineCommand({
  name: 'mget', arity: -2, flags: ['readonly', 'fast'], keys: kAllKeys, acl: ['read', 'string', 'fast'],
  tips: ['request_policy:multi_shard'],
  group: 'string', summary: 'Atomically returns the string values of one or more keys.', complexity: 'O(N)',
  run: (s, argv) => s.server.store.submit(s, new ReadOp(s.db, null, argv.slice(1), mgetReply)),
});
