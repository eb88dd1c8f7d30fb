/**
 * How a lane cuts a batch into runs, asking each op which run it joins (core/engine/ops.ts):
 *
 *   batch:  R R R  W W  S  P P P  B  R  T
 *           ╰─┬─╯  ╰┬╯  │  ╰─┬─╯  │  │  │
 *   runs:   read  write stmt push sadd … tx      one statement each (a tx: its own pipeline)
 *
 * Read, Write and Incr ops join the run of the same kind before them; a BatchOp joins one of the
 * same family Batch when batch.joins(first, it) says so; a StmtOp or TxOp runs alone.
 */
import { OpKind, type BatchOp, type IncrOp, type Op, type ReadOp, type WriteOp } from '../../core/engine/ops';
import type { Pipeline } from './pipeline';
import { sendReads } from './read-run';
import { sendWrites } from './write-run';
import { sendIncrs } from './incr-run';
import { sendBatch, sendStmt } from './stmt-run';
import { sendTx } from './tx-run';

/** the end (exclusive) of the run that starts at batch[from] */
export function runEnd(batch: readonly Op[], from: number): number {
  const first = batch[from];
  let j = from + 1;
  switch (first.kind) {
    case OpKind.Read: case OpKind.Write: case OpKind.Incr:
      while (j < batch.length && batch[j].kind === first.kind) j++;
      break;
    case OpKind.Batch:
      for (; j < batch.length; j++) {
        const next = batch[j];
        if (next.kind !== OpKind.Batch || next.batch !== first.batch || !first.batch.joins(first.args, next.args)) break;
      }
      break;
  }
  return j;
}

/** Sends the run batch[from, to) (runEnd's) into the lane's pipeline. */
export function sendRun(p: Pipeline, batch: Op[], from: number, to: number): void {
  const first = batch[from];
  switch (first.kind) {
    case OpKind.Read: return sendReads(p, slice<ReadOp>(batch, from, to));
    case OpKind.Write: return sendWrites(p, slice<WriteOp>(batch, from, to));
    case OpKind.Incr: return sendIncrs(p, slice<IncrOp>(batch, from, to));
    case OpKind.Batch: return sendBatch(p, slice<BatchOp>(batch, from, to));
    case OpKind.Stmt: return sendStmt(p, first);
    case OpKind.Tx: return sendTx(p, first, (op, inTx) => sendRun(inTx, [op], 0, 1));
  }
}

function slice<T extends Op>(batch: Op[], from: number, to: number): T[] {
  return (from === 0 && to === batch.length ? batch : batch.slice(from, to)) as T[];
}
