/**
 * PFCOUNT key [key …] — the estimated cardinality: of one key from its cache (recomputed and
 * cached when a write invalidated it), of several keys from the union of their registers.
 * https://redis.io/commands/pfcount/
 */
import type { Reply } from '../../reply';
import { Noted } from '../../pending-reply';
import type { Emit } from '../../write-hook';
import { Err } from '../../resp-errors';
import { encodeBufferArray, dbArg, exec, int8Reply, nowArg } from '../exec';
import { defineCommand } from '../define';
import { kAllKeys } from '../spec';
import { kCorrupted, kHllErrors, kNotHll } from './errors';
import { kRegisters } from './murmur';
import { estimate, isHll, mergeRegisters } from './registers';
import { kHllSql } from './sql';

/** Keys in argument order (missing ones have no row): the first bad one answers, as in Redis. */
function union(rows: unknown[][]): Reply {
  const max = new Uint8Array(kRegisters);
  for (const r of rows) {
    if (r[1] !== 0) return Err.wrongType;
    const v = r[2] as Buffer;
    if (!isHll(v)) return kNotHll;
    if (!mergeRegisters(max, v)) return kCorrupted;
  }
  return estimate(max);
}

/** hll_count's status when it counted and rewrote the key's cached cardinality */
const kRewrote = 8;

/**
 * The write hook's report of a PFCOUNT that rewrote its key's cached cardinality: 'modified', a
 * name with no keyspace event (Redis sends none: its pfcountCommand calls signalModifiedKey, not
 * notifyKeyspaceEvent), which CLIENT TRACKING turns into an invalidation as Redis does. Where
 * the statement's status is not kept (note undefined: answered without the lane) it is reported
 * too: an invalidation Redis might not send rather than one missed.
 */
export function pfcountEvents(emit: Emit, db: number, argv: Buffer[], _reply: Reply, note: unknown): void {
  if (argv.length === 2 && note !== 0) emit(db, 'modified', argv[1], false);
}

export const pfcount = defineCommand({
  name: 'pfcount', arity: -2, flags: ['readonly', 'may_replicate'], keys: kAllKeys, acl: ['hyperloglog'],
  group: 'hyperloglog', since: '2.8.9', events: pfcountEvents,
  summary: 'Returns the approximated cardinality of the set(s) observed by the HyperLogLog key(s).',
  complexity: 'O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys.',
  run(s, argv) {
    if (argv.length === 2) {
      return exec(s, kHllSql.count, [dbArg(s), argv[1], nowArg()], (rows) => {
        const status = rows[0][0] as number;
        return kHllErrors[status] ?? new Noted(int8Reply(rows[0][1]), status === kRewrote ? 1 : 0);
      });
    }
    return exec(s, kHllSql.values, [dbArg(s), encodeBufferArray(argv.slice(1)), nowArg()], union);
  },
});
