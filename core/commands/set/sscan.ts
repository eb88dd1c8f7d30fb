/**
 * SSCAN key cursor [MATCH pattern] [COUNT count] — a page of members in h order
 * (collection/scan.ts).
 * https://redis.io/commands/sscan/
 */
import { KeyType } from '../../store';
import { elementScan } from '../collection/scan';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kSetSql } from './sql';

export const sscan = defineCommand({
  name: 'sscan', arity: -3, flags: ['readonly'], keys: kOneKey, acl: ['read', 'set', 'slow'],
  tips: ['nondeterministic_output'],
  group: 'set', since: '2.8.0', summary: 'Iterates over members of a set.',
  complexity: 'O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.',
  run: (s, argv) => elementScan(s, argv, kSetSql.scan, KeyType.Set, false),
});
