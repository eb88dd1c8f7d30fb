/**
 * HSCAN key cursor [MATCH pattern] [COUNT count] — a page of fields and values in h order
 * (collection/scan.ts: cursors stay valid while fields come and go).
 * https://redis.io/commands/hscan/
 */
import { RespError } from '../../reply';
import { KeyType } from '../../store';
import { dbArg, exec, nowArg, typedRead } from '../collection/exec';
import { kEmptyScan, parseScan, scanPage } from '../collection/scan';
import { defineCommand } from '../define';
import { kOneKey } from '../spec';
import { kHashSql } from './sql';

export const hscan = defineCommand({
  name: 'hscan', arity: -3, flags: ['readonly'], keys: kOneKey, acl: ['read', 'hash', 'slow'],
  group: 'hash', since: '2.8.0', summary: 'Iterates over fields and values of a hash.',
  complexity: 'O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.',
  run(s, argv) {
    const o = parseScan(argv, argv[2]);
    if (o instanceof RespError) return o;
    const limit = o.error ? 1 : o.count + 1;
    return exec(s, kHashSql.scan, [dbArg(s), argv[1], String(o.cursor), String(limit), nowArg()],
      typedRead(KeyType.Hash, kEmptyScan, (rows) => o.error ??
        scanPage(rows.filter((r) => r[1] !== null), 1, o.count, o.match, true)));
  },
});
