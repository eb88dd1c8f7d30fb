/**
 * SCAN cursor [MATCH pattern] [COUNT count] [TYPE type] — one page of COUNT keys in kv_hash
 * order from the cursor's position (scan-cursor.ts), plus any keys sharing the last one's hash,
 * then MATCH and TYPE filter it, as Redis filters after reading its buckets: a page may come
 * back short or empty before the end. COUNT bounds the rows read, so MATCH does not narrow the
 * read (KEYS, in key order, still reads only its pattern's prefix range).
 * https://redis.io/commands/scan/
 */
import { globMatch } from '../../glob';
import { RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import { lower, parseI64 } from '../args';
import { defineCommand } from '../define';
import { matchesAll } from './glob-range';
import { decodeCursor, encodeCursor } from './scan-cursor';
import { kTypeNames } from './shared';
import { dbArg, nowArg } from '../exec';
import { kKeySql } from './sql';

const kMaxCount = 100_000; // a hint; bounds one statement's rows

interface ScanOptions { count: number; pattern: Buffer | undefined; type: string | undefined }

function parseOptions(argv: Buffer[]): ScanOptions | RespError {
  const o: ScanOptions = { count: 10, pattern: undefined, type: undefined };
  for (let i = 2; i < argv.length; i += 2) {
    const name = lower(argv[i]);
    if (i + 1 >= argv.length) return Err.syntax;
    if (name === 'count') {
      const n = parseI64(argv[i + 1]);
      if (n === undefined) return Err.notInteger;
      if (n < 1n) return Err.syntax;
      o.count = n > BigInt(kMaxCount) ? kMaxCount : Number(n);
    } else if (name === 'match') o.pattern = matchesAll(argv[i + 1]) ? undefined : argv[i + 1];
    else if (name === 'type') o.type = lower(argv[i + 1]);
    else return Err.syntax;
  }
  return o;
}

export const scan = defineCommand({
  name: 'scan', arity: -2, flags: ['readonly'], acl: ['keyspace', 'read', 'slow'], group: 'generic', since: '2.8.0',
  tips: ['nondeterministic_output', 'request_policy:special'],
  summary: 'Iterates over the key names in the database.', complexity: 'O(1) for every call. O(N) for a complete iteration.',
  run(s, argv) {
    const from = decodeCursor(argv[1]);
    if (from instanceof RespError) return from;
    const o = parseOptions(argv);
    if (o instanceof RespError) return o;
    return s.server.store.exec(s, kKeySql.scanPage, [dbArg(s), String(from), String(o.count), nowArg()], (rows): Reply => {
      const keys: Buffer[] = [];
      let last = from;
      for (const [key, type, h] of rows as [Buffer, number, string][]) {
        const hash = BigInt(h);
        if (hash > last) last = hash;
        if (o.pattern !== undefined && !globMatch(o.pattern, key)) continue;
        if (o.type !== undefined && kTypeNames[type] !== o.type) continue;
        keys.push(key);
      }
      return [rows.length < o.count ? '0' : encodeCursor(last), keys];
    });
  },
});
