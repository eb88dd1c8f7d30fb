/**
 * The INCR run: consecutive INCR / INCRBY / DECR / DECRBY ops as one incr_many() call, which
 * applies them in order (one key may appear several times) and returns one row per op; each op's
 * (status, value) goes to its reply function (incr.ts maps the statuses to Redis's errors).
 */
import type { IncrOp } from '../../core/engine/ops';
import { encodeBufferArray, int2Array, int8, int8Array } from '../../core/engine/pg-driver/binary-array';
import type { PgResult } from '../../core/engine/pg-driver/result';
import type { Pipeline } from './pipeline';
import { kSql } from './statements';

export function sendIncrs(p: Pipeline, ops: IncrOp[]): void {
  const params = [int2Array(ops.map((o) => o.db)), encodeBufferArray(ops.map((o) => o.key)), int8Array(ops.map((o) => o.delta)), int8(Date.now())];
  p.send(kSql.incrMany.text, params, (err, res) => (err ? p.fail(ops, err) : resolveIncrs(ops, res!)));
}

/** rows (i, status, result): i is the op's 1-based place in the run */
function resolveIncrs(ops: readonly IncrOp[], res: PgResult): void {
  for (let r = 0; r < res.rowCount; r++) {
    const op = ops[res.int(r, 0)! - 1];
    op.settle(op.reply(res.int(r, 1)!, res.bigint(r, 2)));
  }
}
