/**
 * What the pop batches share (LPOP/RPOP list/pop-batch.ts, ZPOPMIN/ZPOPMAX zset/zpop-batch.ts,
 * SPOP set/spop-batch.ts): consecutive pops of one key run as ONE call of the family's pop
 * function for the sum of their counts, and each op is dealt, in order, the elements serial
 * execution would have given it — popping 1, then 2, then 1 is popping 4 and dealing 1, 2, 1.
 * Why: redis-benchmark's pops hit one key from every client, and a statement per pop passed that
 * key's row lock between the workers' lanes once per command (LPOP 19k/s vs redis-server's 826k).
 *
 * The op that takes the last element carries the note 1 (its `del` event, fired after that pop as
 * Redis fires it); the ops after it find the key missing. A wrong type answers every op alike.
 */
import { Noted } from '../../pending-reply';
import type { Rows } from '../../key-store';
import type { BatchOp } from '../../ops';
import type { Reply } from '../../reply';
import { Err } from '../../resp-errors';
import type { KeyArgs } from './batch';

/** count: null for the form without one (one element, not an array) */
export interface PopArgs extends KeyArgs { count: bigint | null }

/** int8's max: several huge counts still sum to a valid p_count (a pop takes at most the key) */
const kMaxCount = (1n << 63n) - 1n;

/** the run's p_count, as text */
export function popTotal(ops: readonly BatchOp<PopArgs>[]): string {
  let total = 0n;
  for (const op of ops) total += op.args.count ?? 1n;
  return String(total > kMaxCount ? kMaxCount : total);
}

/** How a family words one op's share: rows[from, to) (none when the key is missing or went). */
export type PopReply<A> = (args: A, rows: Rows, from: number, to: number, live: boolean) => Reply;

/**
 * rows (status, element…, gone at `goneCol`): none when the key is missing, one (2, NULL…) for a
 * wrong type, else the popped elements in pop order (a row whose element is NULL holds none:
 * l_pop's answer to a count of 0), gone true on each when they were the key's last.
 */
export function dealPops<A extends PopArgs>(ops: readonly BatchOp<A>[], rows: Rows, goneCol: number, reply: PopReply<A>): void {
  if (rows.length > 0 && rows[0][0] === 2) {
    for (const op of ops) op.settle(Err.wrongType);
    return;
  }
  const gone = rows.length > 0 && rows[0][goneCol] === true;
  const end = rows.length > 0 && rows[0][1] === null ? 0 : rows.length;
  let live = rows.length > 0;
  let k = 0;
  for (const op of ops) {
    const count = op.args.count;
    if (!live) {
      op.settle(reply(op.args, rows, k, k, live));
      continue;
    }
    const left = end - k;
    const n = count === null ? 1 : count >= BigInt(left) ? left : Number(count);
    const from = k;
    k += n;
    // this op took the last element: the key went with it (its `del`), the next ops find none
    const emptied = gone && k === end && n > 0;
    op.settle(new Noted(reply(op.args, rows, from, k, true), emptied ? 1 : 0));
    if (emptied) live = false;
  }
}
