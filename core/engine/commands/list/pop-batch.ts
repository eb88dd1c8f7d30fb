/**
 * How LPOP / RPOP batch: consecutive pops from one end of one key run as one l_pop_run() call for
 * the sum of their counts, dealt out op by op (collection/pop-batch.ts says how and why).
 * l_pop_run returns the elements unordered, each with its offset in the popped range (sorting
 * 1 KiB rows in Postgres cost ~0.9 µs of backend CPU per element, list/functions.ts): popOrder
 * puts each in its place in one pass.
 */
import type { Rows } from '../../key-store';
import type { Batch } from '../../ops';
import { kNullArray } from '../../reply';
import { sameKey } from '../collection/batch';
import { dealPops, popTotal, type PopArgs } from '../collection/pop-batch';
import { kListSql } from './sql';

export interface ListPopArgs extends PopArgs { left: boolean }

export const kListPopBatch: Batch<ListPopArgs> = {
  joins: (a, b) => a.left === b.left && sameKey(a, b),
  statement: () => kListSql.popRun,

  /** l_pop_run($1 db, $2 key, $3 count, $4 left, $5 now) */
  params: (ops, now) => [String(ops[0].args.db), ops[0].args.key, popTotal(ops), ops[0].args.left ? 'true' : 'false', now],

  /** rows (status, off, value, gone); a missing key is nil, or a null array with a count */
  resolve: (ops, rows) => dealPops(ops, popOrder(rows, ops[0].args.left), 3, (a, r, from, to, live) => {
    if (!live) return a.count === null ? null : kNullArray;
    if (a.count === null) return r[from][2] as Buffer;
    const out: Buffer[] = [];
    for (let i = from; i < to; i++) out.push(r[i][2] as Buffer);
    return out;
  }),

  bytes: (a) => a.key.length + 8,
};

/**
 * rows in pop order. Row r's off is its place from the low end of the popped range: from the head
 * (left) that is its place in the pop, from the tail it counts from the other end. Rows without an
 * off (WRONGTYPE, a count of 0) are one row: returned as they are.
 */
export function popOrder(rows: Rows, left: boolean): Rows {
  const n = rows.length;
  if (n < 2) return rows;
  const out: Rows = new Array(n);
  for (const r of rows) {
    const off = r[1];
    const at = typeof off !== 'number' ? -1 : left ? off : n - 1 - off;
    if (!(Number.isInteger(at) && at >= 0 && at < n) || out[at] !== undefined) throw new Error('l_pop_run: offsets not 0…n-1');
    out[at] = r;
  }
  return out;
}
