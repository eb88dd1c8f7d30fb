/**
 * LRANGE key start stop — elements start…stop (negative = from the end), one index range scan.
 * https://redis.io/commands/lrange/
 */
import { Err } from '../../resp-errors';
import { KeyType } from '../../key-store';
import { parseI64 } from '../args';
import { dbArg, exec, int8, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kListSql } from './sql';

export const lrange = defineCommand({
  name: 'lrange', arity: 4, flags: ['readonly'], keys: kOneKey, acl: ['read', 'list', 'slow'],
  group: 'list', since: '1.0.0', summary: 'Returns a range of elements from a list.',
  complexity: 'O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.',
  run(s, argv) {
    const start = parseI64(argv[2]);
    const stop = parseI64(argv[3]);
    if (start === undefined || stop === undefined) return Err.notInteger;
    return exec(s, kListSql.range, [dbArg(s), argv[1], int8(start), int8(stop), nowArg()],
      typedRead(KeyType.List, [], (rows) => rows.filter((r) => r[1] !== null).map((r) => r[1] as Buffer)));
  },
});
