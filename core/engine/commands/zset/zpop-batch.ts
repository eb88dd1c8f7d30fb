/**
 * How ZPOPMIN / ZPOPMAX batch: consecutive pops from one end of one sorted set run as one z_pop()
 * call for the sum of their counts, dealt out op by op (collection/pop-batch.ts says how and why).
 */
import type { Batch } from '../../ops';
import { sameKey } from '../collection/batch';
import { dealPops, popTotal, type PopArgs } from '../collection/pop-batch';
import { elements } from './reply';
import { kZsetSql } from './sql';

/** nested: [member, score] pairs (a count given, RESP3), else flat */
export interface ZpopArgs extends PopArgs { max: boolean; nested: boolean }

export const kZpopBatch: Batch<ZpopArgs> = {
  joins: (a, b) => a.max === b.max && sameKey(a, b),
  statement: () => kZsetSql.pop,

  /** z_pop($1 db, $2 key, $3 count, $4 max, $5 now) */
  params: (ops, now) => [String(ops[0].args.db), ops[0].args.key, popTotal(ops), ops[0].args.max ? 'true' : 'false', now],

  /** rows (status, member, score, gone); a missing key, or nothing popped, is an empty array */
  resolve: (ops, rows) => dealPops(ops, rows, 3, (a, r, from, to) =>
    (from === to ? [] : elements(from === 0 && to === r.length ? r : r.slice(from, to), 1, true, a.nested))),

  bytes: (a) => a.key.length + 8,
};
