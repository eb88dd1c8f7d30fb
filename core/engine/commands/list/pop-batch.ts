/**
 * How LPOP / RPOP batch: consecutive pops from one end of one key run as one l_pop_run() call for
 * the sum of their counts, dealt out op by op (collection/pop-batch.ts says how and why).
 * l_pop_run returns the elements unordered with their positions (sorting 1 KiB rows in Postgres
 * cost ~0.9 µs of backend CPU per element, list/functions.ts); they are contiguous, so
 * popOrder puts each in its place in one pass.
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

  /** rows (status, pos, value, gone); a missing key is nil, or a null array with a count */
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
 * rows in pop order: from the head (left) lowest pos first, from the tail highest first. The
 * positions of one pop are contiguous, so row i goes to |pos − the first popped pos| without a
 * sort. Rows without a pos (WRONGTYPE, a count of 0) are one row: returned as they are.
 */
export function popOrder(rows: Rows, left: boolean): Rows {
  if (rows.length < 2) return rows;
  let first = Number(rows[0][1]);
  for (let i = 1; i < rows.length; i++) {
    const p = Number(rows[i][1]);
    if (left ? p < first : p > first) first = p;
  }
  const out: Rows = new Array(rows.length);
  for (const r of rows) {
    const at = left ? Number(r[1]) - first : first - Number(r[1]);
    if (at < 0 || at >= rows.length || out[at] !== undefined) throw new Error('l_pop_run: positions not contiguous');
    out[at] = r;
  }
  return out;
}
