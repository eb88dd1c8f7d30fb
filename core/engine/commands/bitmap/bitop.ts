/**
 * BITOP AND | OR | XOR | NOT destkey key [key …] — destkey := the sources combined byte by byte
 * (missing ones empty, shorter ones padded with zeros), without TTL; its length, 0 deleting it.
 * https://redis.io/commands/bitop/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { lower } from '../args';
import { defineCommand } from '../define';
import { stored } from '../events';
import { countNoted, dbArg, encodeBufferArray, exec, nowArg } from '../exec';
import { kBitmapSql } from './sql';

const kNotOneKey = new RespError('ERR BITOP NOT must be called with a single source key.');
const kOps = new Map([['and', 0], ['or', 1], ['xor', 2], ['not', 3]]);
/** 'set' on the destination when the result has bytes, else 'del' if it existed (the note) */
const kStoredSet = stored('set');

export const bitop = defineCommand({
  name: 'bitop', arity: -4, flags: ['write', 'denyoom'], keys: { first: 2, last: -1, step: 1 }, acl: ['bitmap'],
  events: (emit, db, argv, reply, note) => kStoredSet(emit, db, argv.slice(1), reply, note),
  group: 'bitmap', since: '2.6.0', complexity: 'O(N)', summary: 'Performs bitwise operations on multiple strings, and stores the result.',
  run(s, argv) {
    const op = kOps.get(lower(argv[1]));
    if (op === undefined) return Err.syntax;
    if (op === 3 && argv.length !== 4) return kNotOneKey;
    return exec(s, kBitmapSql.op, [dbArg(s), String(op), argv[2], encodeBufferArray(argv.slice(3)), nowArg()], (rows) =>
      (rows[0][0] === 2 ? Err.wrongType : countNoted(rows)));
  },
});
