/**
 * BITPOS key 0|1 [start [end [BYTE | BIT]]] — the first bit set (1) or clear (0) in the value or
 * a range; -1 when none, except that a clear bit searched without an end is found past the value.
 * Redis's order: the bit argument, the key, then the range.
 * https://redis.io/commands/bitpos/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { parseI64 } from '../args';
import { defineCommand } from '../define';
import { dbArg, exec, int8, int8Reply, nowArg } from '../exec';
import { kOneKey } from '../spec';
import { afterLookup, unitIsBit } from './range';
import { kBitmapSql } from './sql';

const kBitArg = new RespError('ERR The bit argument must be 1 or 0.');

interface Range { args: number; start: bigint; end: bigint; bit: boolean }

function parseRange(argv: Buffer[]): Range | RespError {
  const args = argv.length - 3;
  if (args === 0) return { args, start: 0n, end: 0n, bit: false };
  if (args > 3) return Err.syntax;
  const start = parseI64(argv[3]);
  if (start === undefined) return Err.notInteger;
  const bit = args === 3 ? unitIsBit(argv[5]) : false; // the unit is checked before the end
  if (bit instanceof RespError) return bit;
  const end = args >= 2 ? parseI64(argv[4]) : 0n;
  if (end === undefined) return Err.notInteger;
  return { args, start, end, bit };
}

export const bitpos = defineCommand({
  name: 'bitpos', arity: -3, flags: ['readonly'], keys: kOneKey, acl: ['bitmap'],
  group: 'bitmap', since: '2.8.7', complexity: 'O(N)', summary: 'Finds the first set (1) or clear (0) bit in a string.',
  run(s, argv) {
    const want = parseI64(argv[2]);
    if (want === undefined) return Err.notInteger;
    if (want !== 0n && want !== 1n) return kBitArg;
    const r = parseRange(argv);
    if (r instanceof RespError) return afterLookup(s, argv[1], want === 1n ? -1 : 0, r);
    const values = [dbArg(s), argv[1], String(want), String(r.args), int8(r.start), int8(r.end), r.bit ? 'true' : 'false', nowArg()];
    return exec(s, kBitmapSql.pos, values, (rows) => (rows[0][0] === 2 ? Err.wrongType : int8Reply(rows[0][1])));
  },
});
