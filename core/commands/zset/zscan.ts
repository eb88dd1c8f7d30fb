/**
 * ZSCAN key cursor [MATCH pattern] [COUNT count] — a page of members and scores in h order
 * (collection/scan.ts). Scores are bulk strings as Redis's listpack encoding (every small sorted
 * set) keeps them: integral values within ±2^62 as integers (d2string), others "%.17g".
 * https://redis.io/commands/zscan/
 */
import { formatDouble } from '../../../protocol/format-double';
import { KeyType } from '../../store';
import { elementScan } from '../collection/scan';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kZsetSql } from './sql';

const kLLongHalf = 4611686018427387903; // LLONG_MAX / 2: double2ll's limit

function scoreText(x: number): string {
  return Number.isInteger(x) && Math.abs(x) <= kLLongHalf ? BigInt(x).toString() : formatDouble(x);
}

export const zscan = defineCommand({
  name: 'zscan', arity: -3, flags: ['readonly'], keys: kOneKey, acl: ['read', 'sortedset', 'slow'],
  tips: ['nondeterministic_output'],
  group: 'sorted-set', since: '2.8.0', summary: 'Iterates over members and scores of a sorted set.',
  complexity: 'O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.',
  run: (s, argv) => elementScan(s, argv, kZsetSql.scan, KeyType.Zset, true, (v) => scoreText(v as number)),
});
