/**
 * How LPOP / RPOP batch: consecutive pops from one end of one key run as ONE l_pop() call for
 * the sum of their counts, and each op takes, in order, the elements serial execution would have
 * given it — popping 1, then 2, then 1 is popping 4 and dealing them out 1, 2, 1. Why: the
 * harness's LPOP/RPOP hit one key from every client, and a statement per pop passed the key's
 * row lock between the two workers' lanes once per command (LPOP 19k/s vs redis-server's 826k).
 *
 * The op that takes the list's last element carries the note 1 (its `del` event, as Redis fires
 * it after that pop); the ops after it find the key missing (nil, or a null array with a count).
 * A wrong type answers every op alike, as each alone would.
 */
import { Noted } from '../../pending-reply';
import { kNullArray } from '../../reply';
import { Err } from '../../resp-errors';
import type { Batch } from '../../ops';
import { sameKey } from '../collection/batch';
import { kListSql } from './sql';

/** count: null for the form without one (the reply is one element, not an array) */
export interface PopArgs { db: number; key: Buffer; left: boolean; count: bigint | null }

/** int8's max: the sum of several huge counts must still be a valid p_count (l_pop takes at most the list) */
const kMaxCount = (1n << 63n) - 1n;

export const kPopBatch: Batch<PopArgs> = {
  joins: (a, b) => a.left === b.left && sameKey(a, b),
  statement: () => kListSql.pop,

  /** l_pop($1 db, $2 key, $3 count, $4 left, $5 now) */
  params(ops, now) {
    const a = ops[0].args;
    let total = 0n;
    for (const op of ops) total += op.args.count ?? 1n;
    if (total > kMaxCount) total = kMaxCount;
    return [String(a.db), a.key, String(total), a.left ? 'true' : 'false', now];
  },

  /**
   * rows (status, value, gone): none when the key is missing, one (2, NULL) for a wrong type, one
   * (1, NULL, false) for a total count of 0, else the popped elements in pop order, gone true on
   * each when they were the list's last.
   */
  resolve(ops, rows) {
    if (rows.length > 0 && rows[0][0] === 2) {
      for (const op of ops) op.settle(Err.wrongType);
      return;
    }
    const gone = rows.length > 0 && rows[0][2] === true;
    let live = rows.length > 0;
    let k = 0;
    const end = rows.length > 0 && rows[0][1] === null ? 0 : rows.length;
    for (const op of ops) {
      const count = op.args.count;
      if (!live) {
        op.settle(count === null ? null : kNullArray);
        continue;
      }
      let reply: Buffer | Buffer[];
      if (count === null) {
        reply = rows[k++][1] as Buffer;
      } else {
        const left = end - k;
        const n = count >= BigInt(left) ? left : Number(count);
        const elements: Buffer[] = new Array(n);
        for (let i = 0; i < n; i++) elements[i] = rows[k++][1] as Buffer;
        reply = elements;
      }
      // this op took the last element: the key went with it (its `del`), the next ops find none
      const emptied = gone && k === end;
      if (emptied) live = false;
      op.settle(new Noted(reply, emptied ? 1 : 0));
    }
  },

  bytes: (a) => a.key.length + 8,
};
