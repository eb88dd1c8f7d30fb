/**
 * SCAN cursor [MATCH pattern] [COUNT count] [TYPE type] — one page of at most COUNT keys in key
 * order after the cursor's key (scan-cursor.ts), then MATCH and TYPE filter it, as Redis filters
 * after reading its buckets: a page may come back short or empty before the end. MATCH's
 * literal prefix also narrows the range read.
 * https://redis.io/commands/scan/
 */
import { globMatch } from '../../glob';
import { RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import { lower, parseI64 } from '../args';
import { defineCommand } from '../define';
import { globRange, matchesAll } from './glob-range';
import { decodeCursor, encodeCursor } from './scan-cursor';
import { dbOf, kTypeNames, live, nowMs } from './shared';

const kMaxCount = 100_000; // a hint; bounds one statement's rows
const kBounded = {
  name: 'pr_scan_range',
  text: `SELECT key, type FROM kv WHERE db = $1::int2 AND key >= $2::bytea AND key < $3::bytea AND ${live('$5')}
         ORDER BY key LIMIT $4::int4`,
};
const kOpen = {
  name: 'pr_scan_from',
  text: `SELECT key, type FROM kv WHERE db = $1::int2 AND key >= $2::bytea AND ${live('$4')} ORDER BY key LIMIT $3::int4`,
};

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

/** where to start: just after the cursor's key (key || 0x00), and not before MATCH's prefix */
function lowerBound(after: Buffer | null, prefix: Buffer): Buffer {
  if (after === null) return prefix;
  const next = Buffer.concat([after, Buffer.alloc(1)]);
  return Buffer.compare(next, prefix) > 0 ? next : prefix;
}

export const scan = defineCommand({
  name: 'scan', arity: -2, flags: ['readonly'], acl: ['keyspace', 'read', 'slow'], group: 'generic', since: '2.8.0',
  summary: 'Iterates over the key names in the database.', complexity: 'O(1) for every call. O(N) for a complete iteration.',
  run(s, argv) {
    const after = decodeCursor(argv[1]);
    if (after instanceof RespError) return after;
    const o = parseOptions(argv);
    if (o instanceof RespError) return o;
    const { from, to } = o.pattern === undefined ? { from: Buffer.alloc(0), to: undefined } : globRange(o.pattern);
    const lo = lowerBound(after, from);
    const [stmt, values] = to === undefined ? [kOpen, [dbOf(s), lo, String(o.count), nowMs()]]
      : [kBounded, [dbOf(s), lo, to, String(o.count), nowMs()]];
    return s.server.store.exec(s, stmt, values, (rows): Reply => {
      const keys: Buffer[] = [];
      for (const [key, type] of rows as [Buffer, number][]) {
        if (o.pattern !== undefined && !globMatch(o.pattern, key)) continue;
        if (o.type !== undefined && kTypeNames[type] !== o.type) continue;
        keys.push(key);
      }
      const next = rows.length < o.count ? '0' : encodeCursor(rows[rows.length - 1][0] as Buffer);
      return [next, keys];
    });
  },
});
