/**
 * LRANGE key start stop — elements start…stop (negative = from the end), one index range scan;
 * consecutive equal LRANGEs of one key read it once (./lrange-batch.ts).
 * https://redis.io/commands/lrange/
 */
import { Err } from '../../resp-errors';
import { BatchOp } from '../../ops';
import { parseI64 } from '../args';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kLrangeBatch } from './lrange-batch';

export const lrange = defineCommand({
  name: 'lrange', arity: 4, flags: ['readonly'], keys: kOneKey, acl: ['read', 'list', 'slow'],
  group: 'list', since: '1.0.0', summary: 'Returns a range of elements from a list.',
  complexity: 'O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.',
  run(s, argv) {
    const start = parseI64(argv[2]);
    const stop = parseI64(argv[3]);
    if (start === undefined || stop === undefined) return Err.notInteger;
    return s.server.store.submit(s, new BatchOp(kLrangeBatch, { db: s.db, key: argv[1], start, stop }, null));
  },
});
