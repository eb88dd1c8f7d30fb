/**
 * SSCAN key cursor [MATCH pattern] [COUNT count] — a page of members in h order
 * (collection/scan.ts); a set Redis 7.0 would keep as an intset comes whole, in numeric order.
 * https://redis.io/commands/sscan/
 */
import { KeyType } from '../../key-store';
import { parseI64 } from '../args';
import { elementScan, type Compact } from '../collection/scan';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kSetSql } from './sql';

/** An intset (every member an int64 as string2ll reads it): Redis sends it in numeric order. */
const intset: Compact = (rows) => {
  const keyed: [bigint, unknown[]][] = [];
  for (const r of rows) {
    const v = parseI64(r[1] as Buffer);
    if (v === undefined) return undefined;
    keyed.push([v, r]);
  }
  return keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[1]);
};

export const sscan = defineCommand({
  name: 'sscan', arity: -3, flags: ['readonly'], keys: kOneKey, acl: ['read', 'set', 'slow'],
  tips: ['nondeterministic_output'],
  group: 'set', since: '2.8.0', summary: 'Iterates over members of a set.',
  complexity: 'O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.',
  run: (s, argv) => elementScan(s, argv, kSetSql.scan, KeyType.Set, false, intset),
});
