/**
 * LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN] — longest common subsequence of two
 * string values; Postgres fetches both, the table is computed here (lcs-match.ts). Redis's
 * order: the type check comes before the options are parsed.
 * https://redis.io/commands/lcs/
 */
import { RespError, RespMap, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import { lower, parseI64 } from '../args';
import { defineCommand } from '../define';
import { dbArg, nowArg } from '../exec';
import { lcs, lcsTableBytes } from './lcs-match';
import { kStringSql } from './sql';

const kNotStrings = new RespError('ERR The specified keys must contain string values');
const kIdxAndLen = new RespError('ERR If you want both the length and indexes, please just use IDX.');
const kTooBig = new RespError('ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len');

function reply(argv: Buffer[], a: Buffer, b: Buffer, maxBytes: number): Reply {
  let idx = false; let len = false; let withLen = false; let minLen = 0n;
  for (let j = 3; j < argv.length; j++) {
    const o = lower(argv[j]);
    if (o === 'idx') idx = true;
    else if (o === 'len') len = true;
    else if (o === 'withmatchlen') withLen = true;
    else if (o === 'minmatchlen' && j + 1 < argv.length) {
      const v = parseI64(argv[++j]);
      if (v === undefined) return Err.notInteger;
      minLen = v < 0n ? 0n : v;
    } else return Err.syntax;
  }
  if (idx && len) return kIdxAndLen;
  if (lcsTableBytes(a, b) > maxBytes) return kTooBig;
  const min = minLen > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(minLen);
  const r = lcs(a, b, min, idx);
  if (!idx) return len ? r.len : r.lcs;
  const matches = r.ranges.map((m): Reply => (withLen ? [m.a, m.b, m.len] : [m.a, m.b]));
  return new RespMap(['matches', matches, 'len', r.len]);
}

export const lcsCmd = defineCommand({
  name: 'lcs', arity: -3, flags: ['readonly'], keys: { first: 1, last: 2, step: 1 }, acl: ['read', 'string', 'slow'],
  group: 'string', since: '7.0.0', summary: 'Finds the longest common substring.', complexity: 'O(N*M)',
  run(s, argv) {
    return s.server.store.exec(s, kStringSql.lcs, [dbArg(s), argv[1], argv[2], nowArg()], (rows) => {
      const v: Buffer[] = [Buffer.alloc(0), Buffer.alloc(0)];
      for (const [i, type, value] of rows) {
        if (type !== 0) return kNotStrings;
        v[(i as number) - 1] = value as Buffer;
      }
      return reply(argv, v[0], v[1], s.server.config.int('proto-max-bulk-len'));
    });
  },
});
