/**
 * LINDEX key index — the element at index (negative = from the end), nil out of range. As in
 * Redis, the key is looked up before the index is parsed.
 * https://redis.io/commands/lindex/
 */
import { Err } from '../../resp-errors';
import { KeyType } from '../../key-store';
import { parseI64 } from '../args';
import { dbArg, exec, int8, nowArg, typedRead } from '../exec';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kListSql } from './sql';

export const lindex = defineCommand({
  name: 'lindex', arity: 3, flags: ['readonly'], keys: kOneKey, acl: ['read', 'list', 'slow'],
  group: 'list', since: '1.0.0', summary: 'Returns an element from a list by its index.',
  complexity: 'O(N) where N is the number of elements to traverse to get to the element at index. This makes asking for the first or the last element of the list O(1).',
  run(s, argv) {
    const index = parseI64(argv[2]);
    return exec(s, kListSql.index, [dbArg(s), argv[1], int8(index ?? 0n), nowArg()],
      typedRead(KeyType.List, null, (rows) => (index === undefined ? Err.notInteger : rows[0][1] as Buffer | null)));
  },
});
