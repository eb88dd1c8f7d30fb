/**
 * ZSCAN key cursor [MATCH pattern] [COUNT count] — a page of members and scores in h order
 * (collection/scan.ts); a sorted set Redis would keep as a listpack comes whole, in score order,
 * with scores as the listpack keeps them.
 * https://redis.io/commands/zscan/
 */
import { formatDouble } from '../../../../protocol/format-double';
import { KeyType } from '../../key-store';
import { elementScan, type Compact } from '../collection/scan';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kZsetSql } from './sql';

const kLLongHalf = 4611686018427387903; // LLONG_MAX / 2: double2ll's limit

/**
 * A listpack keeps an integral score within ±LLONG_MAX/2 as an integer (1e17 → 100000000000000000);
 * the skiplist prints every score with %.17g (1e+17).
 */
function scoreText(x: number, listpack: boolean): string {
  return listpack && Number.isInteger(x) && Math.abs(x) <= kLLongHalf ? BigInt(x).toString() : formatDouble(x);
}

/** A listpack (zset-max-listpack-value 64: members): Redis sends it in (score, member) order. */
const listpack: Compact = (rows) => (rows.every((r) => (r[1] as Buffer).length <= 64)
  ? [...rows].sort((a, b) => (a[2] as number) - (b[2] as number) || Buffer.compare(a[1] as Buffer, b[1] as Buffer))
  : undefined);

export const zscan = defineCommand({
  name: 'zscan', arity: -3, flags: ['readonly'], keys: kOneKey, acl: ['read', 'sortedset', 'slow'],
  tips: ['nondeterministic_output'],
  group: 'sorted-set', since: '2.8.0', summary: 'Iterates over members and scores of a sorted set.',
  complexity: 'O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.',
  run: (s, argv) => elementScan(s, argv, kZsetSql.scan, KeyType.Zset, true, listpack, (v, lp) => scoreText(v as number, lp)),
});
