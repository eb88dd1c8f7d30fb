/**
 * The INCR run: consecutive INCR / INCRBY / DECR / DECRBY ops as one statement.
 *
 *   all on one key  ─▶ incr_run(): one row (status, the key's integer before the run); each op's
 *                      reply is dealt here from it and the deltas, in order
 *   several keys    ─▶ incr_many(): applies them in order (one key may appear several times) and
 *                      returns one row per op
 *
 * Each op's (status, value) goes to its reply function (incr.ts maps the statuses to Redis's
 * errors). Why the one-key form: redis-benchmark's INCR sends every client's INCR to one key, and
 * incr_many's row per op cost Postgres ~2.4 µs per INCR (docs/BENCHMARKS.md "Hot keys").
 */
import type { IncrOp } from '../../core/engine/ops';
import { encodeBufferArray, int2Array, int8, int8Array } from '../../core/engine/pg-driver/binary-array';
import type { PgResult } from '../../core/engine/pg-driver/result';
import type { Pipeline } from './pipeline';
import { kSql } from './statements';

const kMax = (1n << 63n) - 1n;
const kMin = -(1n << 63n);

export function sendIncrs(p: Pipeline, ops: IncrOp[]): void {
  if (ops.length > 1 && oneKey(ops)) return sendOneKey(p, ops);
  const params = [int2Array(ops.map((o) => o.db)), encodeBufferArray(ops.map((o) => o.key)), int8Array(ops.map((o) => o.delta)), int8(Date.now())];
  p.send(kSql.incrMany.text, params, (err, res) => (err ? p.fail(ops, err) : resolveIncrs(ops, res!)));
}

function oneKey(ops: readonly IncrOp[]): boolean {
  const { db, key } = ops[0];
  for (let i = 1; i < ops.length; i++) if (ops[i].db !== db || !ops[i].key.equals(key)) return false;
  return true;
}

/** rows (i, status, result): i is the op's 1-based place in the run */
function resolveIncrs(ops: readonly IncrOp[], res: PgResult): void {
  for (let r = 0; r < res.rowCount; r++) {
    const op = ops[res.int(r, 0)! - 1];
    op.settle(op.reply(res.int(r, 1)!, res.bigint(r, 2)));
  }
}

function sendOneKey(p: Pipeline, ops: IncrOp[]): void {
  let up = false;
  let down = false;
  const deltas = new Array<bigint>(ops.length);
  for (let i = 0; i < ops.length; i++) {
    const d = ops[i].delta;
    deltas[i] = d;
    if (d > 0n) up = true;
    else if (d < 0n) down = true;
  }
  const params = [String(ops[0].db), ops[0].key, int8Array(deltas), up && down ? 'false' : 'true', int8(Date.now())];
  p.send(kSql.incrRun.text, params, (err, res) => (err ? p.fail(ops, err) : dealIncrs(ops, res!)));
}

/**
 * one row (status, start): a wrong type or a value that is no integer answers every op alike (none
 * changes the key); otherwise each op adds its delta to what the ops before it left, or answers
 * overflow and leaves it — the same walk incr_run() made to find the value it wrote.
 */
export function dealIncrs(ops: readonly IncrOp[], res: PgResult): void {
  const status = res.int(0, 0)!;
  if (status !== 1) {
    for (const op of ops) op.settle(op.reply(status, null));
    return;
  }
  let v = res.bigint(0, 1)!;
  for (const op of ops) {
    const n = v + op.delta;
    if (n > kMax || n < kMin) {
      op.settle(op.reply(4, null));
      continue;
    }
    v = n;
    op.settle(op.reply(1, v));
  }
}
