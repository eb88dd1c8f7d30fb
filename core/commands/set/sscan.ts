/**
 * SSCAN key cursor [MATCH pattern] [COUNT count] — a page of members in h order
 * (collection/scan.ts).
 * https://redis.io/commands/sscan/
 */
import { RespError } from '../../reply';
import { KeyType } from '../../store';
import { dbArg, exec, nowArg, typedRead } from '../collection/exec';
import { kEmptyScan, parseScan, scanPage } from '../collection/scan';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kSetSql } from './sql';

export const sscan = defineCommand({
  name: 'sscan', arity: -3, flags: ['readonly'], keys: kOneKey, acl: ['read', 'set', 'slow'],
  group: 'set', since: '2.8.0', summary: 'Iterates over members of a set.',
  complexity: 'O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.',
  run(s, argv) {
    const o = parseScan(argv, argv[2]);
    if (o instanceof RespError) return o;
    const limit = o.error ? 1 : o.count + 1;
    return exec(s, kSetSql.scan, [dbArg(s), argv[1], String(o.cursor), String(limit), nowArg()],
      typedRead(KeyType.Set, kEmptyScan, (rows) => o.error ??
        scanPage(rows.filter((r) => r[1] !== null), 1, o.count, o.match, false)));
  },
});
