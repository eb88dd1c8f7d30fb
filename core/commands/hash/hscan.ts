/**
 * HSCAN key cursor [MATCH pattern] [COUNT count] — a page of fields and values in h order
 * (collection/scan.ts: cursors stay valid while fields come and go).
 * https://redis.io/commands/hscan/
 */
import { KeyType } from '../../store';
import { elementScan } from '../collection/scan';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

export const hscan = defineCommand({
  name: 'hscan', arity: -3, flags: ['readonly'], keys: kOneKey, acl: ['read', 'hash', 'slow'],
  tips: ['nondeterministic_output'],
  group: 'hash', since: '2.8.0', summary: 'Iterates over fields and values of a hash.',
  complexity: 'O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.',
  run: (s, argv) => elementScan(s, argv, kHashSql.scan, KeyType.Hash, true),
});
