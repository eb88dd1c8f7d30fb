/**
 * How LPOP / RPOP batch: consecutive pops from one end of one key run as one l_pop_run() call for
 * the sum of their counts, dealt out op by op (collection/pop-batch.ts says how and why).
 * l_pop_run returns the elements unordered, each with its offset in the popped range (sorting
 * 1 KiB rows in Postgres cost ~0.9 µs of backend CPU per element, list/functions.ts): popPlaces
 * puts each in its place in one pass. The result is read as it came (resolveResult), each element
 * a view of the delivery buffer: no row array or decoded status/offset/gone per element.
 */
import type { Batch } from '../../ops';
import type { PgResult } from '../../pg-driver/result';
import { kNullArray } from '../../reply';
import { Err } from '../../resp-errors';
import { sameKey } from '../collection/batch';
import { dealPopRun, popTotal, type PopArgs } from '../collection/pop-batch';
import { kListSql } from './sql';

export interface ListPopArgs extends PopArgs { left: boolean }

export const kListPopBatch: Batch<ListPopArgs> = {
  joins: (a, b) => a.left === b.left && sameKey(a, b),
  statement: () => kListSql.popRun,

  /** l_pop_run($1 db, $2 key, $3 count, $4 left, $5 now) */
  params: (ops, now) => [String(ops[0].args.db), ops[0].args.key, popTotal(ops), ops[0].args.left ? 'true' : 'false', now],

  /** rows (status, off, value, gone); a missing key is nil, or a null array with a count */
  resolveResult(ops, res) {
    const n = res.rowCount;
    if (n > 0 && res.int(0, 0) === 2) {
      for (const op of ops) op.settle(Err.wrongType);
      return;
    }
    // one row without an element: l_pop_run's answer to a count of 0
    const values = n === 1 && res.isNull(0, 2) ? [] : popValues(res, ops[0].args.left);
    dealPopRun(ops, n > 0, values.length, n > 0 && res.bool(0, 3) === true, (a, from, to, live) => {
      if (!live) return a.count === null ? null : kNullArray;
      if (a.count === null) return values[from];
      return values.slice(from, to);
    });
  },

  bytes: (a) => a.key.length + 8,
};

/** the popped elements (views of res's buffer) in pop order */
function popValues(res: PgResult, left: boolean): Buffer[] {
  const places = popPlaces(res.rowCount, (r) => (res.length(r, 1) === 8 ? res.buffer.readDoubleBE(res.offset(r, 1)) : null), left);
  const out = new Array<Buffer>(places.length);
  for (let i = 0; i < places.length; i++) out[i] = res.value(places[i], 2)!;
  return out;
}

/**
 * places[i]: the row holding the i-th element popped. Row r's off(r) is its place from the low
 * end of the popped range: from the head (left) that is its place in the pop, from the tail it
 * counts from the other end. Offsets that are not 0…n-1 are an error, never a wrong reply.
 */
export function popPlaces(n: number, off: (row: number) => number | null, left: boolean): Int32Array {
  const places = new Int32Array(n).fill(-1);
  for (let r = 0; r < n; r++) {
    const o = off(r);
    const at = o === null ? -1 : left ? o : n - 1 - o;
    if (!(Number.isInteger(at) && at >= 0 && at < n) || places[at] !== -1) throw new Error('l_pop_run: offsets not 0…n-1');
    places[at] = r;
  }
  return places;
}
