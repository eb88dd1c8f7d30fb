/**
 * How LPOP / RPOP batch: consecutive pops from one end of one key run as one l_pop() call for the
 * sum of their counts, dealt out op by op (collection/pop-batch.ts says how and why).
 */
import type { Batch } from '../../ops';
import { kNullArray } from '../../reply';
import { sameKey } from '../collection/batch';
import { dealPops, popTotal, type PopArgs } from '../collection/pop-batch';
import { kListSql } from './sql';

export interface ListPopArgs extends PopArgs { left: boolean }

export const kListPopBatch: Batch<ListPopArgs> = {
  joins: (a, b) => a.left === b.left && sameKey(a, b),
  statement: () => kListSql.pop,

  /** l_pop($1 db, $2 key, $3 count, $4 left, $5 now) */
  params: (ops, now) => [String(ops[0].args.db), ops[0].args.key, popTotal(ops), ops[0].args.left ? 'true' : 'false', now],

  /** rows (status, value, gone); a missing key is nil, or a null array with a count */
  resolve: (ops, rows) => dealPops(ops, rows, 2, (a, r, from, to, live) => {
    if (!live) return a.count === null ? null : kNullArray;
    if (a.count === null) return r[from][1] as Buffer;
    const out: Buffer[] = [];
    for (let i = from; i < to; i++) out.push(r[i][1] as Buffer);
    return out;
  }),

  bytes: (a) => a.key.length + 8,
};
