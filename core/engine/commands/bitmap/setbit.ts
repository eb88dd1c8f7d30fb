/**
 * SETBIT key offset 0|1 — the bit before; the string grows with zero bytes to reach the offset.
 * GETBIT key offset — 0 past the end or for a missing key. Redis's order: offset, bit, type.
 * https://redis.io/commands/setbit/ https://redis.io/commands/getbit/
 */
import { KeyType } from '../../key-store';
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { parseI64 } from '../args';
import { defineCommand } from '../define';
import { dbArg, exec, goneNoted, int8, nowArg, typedRead } from '../exec';
import { kOneKey } from '../spec';
import { bitOffset } from './args';
import { setbitEvents } from './events';
import { kBitmapSql } from './sql';

const kBadBit = new RespError('ERR bit is not an integer or out of range');

export const setbit = defineCommand({
  name: 'setbit', arity: 4, flags: ['write', 'denyoom'], events: setbitEvents, keys: kOneKey, acl: ['bitmap'],
  group: 'bitmap', since: '2.2.0', complexity: 'O(1)',
  summary: 'Sets or clears the bit at offset of the string value. Creates the key if it doesn\'t exist.',
  run(s, argv) {
    const off = bitOffset(argv[2], s.server.config.int('proto-max-bulk-len'));
    if (off instanceof RespError) return off;
    const on = parseI64(argv[3]);
    if (on === undefined || (on & ~1n) !== 0n) return kBadBit;
    return exec(s, kBitmapSql.setbit, [dbArg(s), argv[1], int8(off), String(on), nowArg()], (rows) =>
      (rows[0][0] === 2 ? Err.wrongType : goneNoted(rows, 2, rows[0][1] as number)));
  },
});

export const getbit = defineCommand({
  name: 'getbit', arity: 3, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['bitmap'],
  group: 'bitmap', since: '2.2.0', complexity: 'O(1)', summary: 'Returns a bit value by offset.',
  run(s, argv) {
    const off = bitOffset(argv[2], s.server.config.int('proto-max-bulk-len'));
    if (off instanceof RespError) return off;
    const shift = 7 - Number(off & 7n);
    return exec(s, kBitmapSql.getbit, [dbArg(s), argv[1], int8(off >> 3n), nowArg()], typedRead(KeyType.String, 0, (rows) =>
      (rows[0][1] === null ? 0 : ((rows[0][1] as number) >> shift) & 1)));
  },
});
