/**
 * How LRANGE batches: consecutive LRANGEs of one key with the same start and stop read the list
 * once, and every op answers that one reply. Nothing runs between them on the lane (a run is
 * consecutive ops of one batch), so each would have read the same rows alone.
 *
 * redis-benchmark's LRANGE_100 … LRANGE_600 send every client's `LRANGE mylist 0 N-1` to one
 * key: a lane's batch of 256 of them read the same 600 rows 256 times (one statement each).
 */
import type { Batch } from '../../ops';
import { KeyType } from '../../key-store';
import { int8 } from '../../pg-driver/binary-array';
import { sameKey, type KeyArgs } from '../collection/batch';
import { typedRead } from '../exec';
import { kListSql } from './sql';

export interface RangeArgs extends KeyArgs { start: bigint; stop: bigint }

/** rows (type, value): the list's elements, or an empty array when the key is missing */
const rangeReply = typedRead(KeyType.List, [], (rows) => rows.filter((r) => r[1] !== null).map((r) => r[1] as Buffer));

export const kLrangeBatch: Batch<RangeArgs> = {
  joins: (a, b) => a.start === b.start && a.stop === b.stop && sameKey(a, b),
  statement: () => kListSql.range,

  /** range($1 db, $2 key, $3 start, $4 stop, $5 now) */
  params: (ops, now) => {
    const a = ops[0].args;
    return [String(a.db), a.key, int8(a.start), int8(a.stop), now];
  },

  /** one reply for all: a read changes nothing, and the ops asked the same */
  resolve: (ops, rows) => {
    const reply = rangeReply(rows);
    for (const op of ops) op.settle(reply);
  },

  bytes: (a) => a.key.length + 16,
};
