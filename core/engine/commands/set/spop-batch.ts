/**
 * How SPOP batches: consecutive SPOPs of one set run as one s_pop() call for the sum of their
 * counts — one random pick of them all, dealt out op by op (collection/pop-batch.ts says how and
 * why); serial SPOPs are as random.
 */
import type { Batch } from '../../ops';
import { RespSet } from '../../reply';
import { sameKey } from '../collection/batch';
import { dealPops, popTotal, type PopArgs } from '../collection/pop-batch';
import { randomH } from '../collection/random';
import { kSetSql } from './sql';

export const kSpopBatch: Batch<PopArgs> = {
  joins: sameKey,
  statement: () => kSetSql.pop,

  /** s_pop($1 db, $2 key, $3 count, $4 random start, $5 now) */
  params: (ops, now) => [String(ops[0].args.db), ops[0].args.key, popTotal(ops), String(randomH()), now],

  /** rows (status, member, gone); a missing key is nil, or an empty set with a count */
  resolve: (ops, rows) => dealPops(ops, rows, 2, (a, r, from, to) => {
    if (a.count === null) return from === to ? null : r[from][1] as Buffer;
    const out: Buffer[] = [];
    for (let i = from; i < to; i++) out.push(r[i][1] as Buffer);
    return new RespSet(out);
  }),

  bytes: (a) => a.key.length + 8,
};
