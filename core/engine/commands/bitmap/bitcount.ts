/**
 * BITCOUNT key [start end [BYTE | BIT]] — set bits in the value or in a range of bytes or bits
 * (negative indexes from the end). Redis looks the key up before it parses the range.
 * https://redis.io/commands/bitcount/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { parseI64 } from '../args';
import { defineCommand } from '../define';
import { dbArg, exec, int8, int8Reply, nowArg } from '../exec';
import { kOneKey } from '../spec';
import { afterLookup, unitIsBit } from './range';
import { kBitmapSql } from './sql';

interface Range { start: bigint; end: bigint; bit: boolean }

/** a reversed range of negative indexes: 0 whatever the unit says */
const kEmpty = 0;

function parseRange(argv: Buffer[]): Range | null | RespError | typeof kEmpty {
  if (argv.length === 2) return null;
  if (argv.length !== 4 && argv.length !== 5) return Err.syntax;
  const start = parseI64(argv[2]);
  const end = parseI64(argv[3]);
  if (start === undefined || end === undefined) return Err.notInteger;
  if (start < 0n && end < 0n && start > end) return kEmpty; // before the unit is looked at
  const bit = argv.length === 5 ? unitIsBit(argv[4]) : false;
  return bit instanceof RespError ? bit : { start, end, bit };
}

export const bitcount = defineCommand({
  name: 'bitcount', arity: -2, flags: ['readonly'], keys: kOneKey, acl: ['bitmap'],
  group: 'bitmap', since: '2.6.0', complexity: 'O(N)', summary: 'Counts the number of set bits (population counting) in a string.',
  run(s, argv) {
    const r = parseRange(argv);
    if (r instanceof RespError || r === kEmpty) return afterLookup(s, argv[1], 0, r);
    const values = [dbArg(s), argv[1], r === null ? 'false' : 'true', int8(r?.start ?? 0n), int8(r?.end ?? 0n),
      r?.bit === true ? 'true' : 'false', nowArg()];
    return exec(s, kBitmapSql.count, values, (rows) => (rows[0][0] === 2 ? Err.wrongType : int8Reply(rows[0][1])));
  },
});
