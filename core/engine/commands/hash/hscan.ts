/**
 * HSCAN key cursor [MATCH pattern] [COUNT count] — a page of fields and values in h order
 * (collection/scan.ts: cursors stay valid while fields come and go); a hash Redis would keep as
 * a listpack comes whole in one reply.
 * https://redis.io/commands/hscan/
 */
import { KeyType } from '../../key-store';
import { elementScan, type Compact } from '../collection/scan';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

/**
 * A listpack (hash-max-listpack-value 64: fields and values): Redis sends it in insertion
 * order, which the hashes table does not keep; h order here (docs/collections.md).
 */
const listpack: Compact = (rows) => (rows.every((r) => (r[1] as Buffer).length <= 64 && (r[2] as Buffer).length <= 64) ? rows : undefined);

export const hscan = defineCommand({
  name: 'hscan', arity: -3, flags: ['readonly'], keys: kOneKey, acl: ['read', 'hash', 'slow'],
  tips: ['nondeterministic_output'],
  group: 'hash', since: '2.8.0', summary: 'Iterates over fields and values of a hash.',
  complexity: 'O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.',
  run: (s, argv) => elementScan(s, argv, kHashSql.scan, KeyType.Hash, true, listpack),
});
