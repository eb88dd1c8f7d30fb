/**
 * Statement commands: a StmtOp alone (its statement, its map), and a run of BatchOps of one
 * family Batch (core/engine/ops.ts), whose statement, parameters and answers the family declares
 * (core/engine/commands/<family>/*-batch.ts). Their rows are few: decoded to plain values.
 */
import type { BatchOp, StmtOp } from '../../core/engine/ops';
import type { Reply } from '../../core/engine/reply';
import type { Noted } from '../../core/engine/pending-reply';
import { int8 } from '../../core/engine/pg-driver/binary-array';
import { typedRows } from '../../core/engine/pg-driver/typed-rows';
import type { Pipeline } from './pipeline';
import { internalError } from './replies';

export function sendStmt(p: Pipeline, op: StmtOp): void {
  if (op.guard !== undefined && !op.guard()) return op.settle(null);
  p.send(op.stmt.text, op.values, (err, res) => {
    if (err) return p.fail([op], err);
    let reply: Reply | Noted;
    try {
      reply = op.map(typedRows(res!));
    } catch (e) {
      reply = internalError(e);
    }
    op.settle(reply);
  });
}

export function sendBatch(p: Pipeline, ops: BatchOp[]): void {
  const batch = ops[0].batch;
  p.send(batch.statement(ops).text, batch.params(ops, int8(Date.now())), (err, res) => {
    if (err) return p.fail(ops, err);
    try {
      batch.resolve(ops, typedRows(res!));
    } catch (e) {
      // the ops resolve() had not answered yet (an op answers once)
      const reply = internalError(e);
      for (const op of ops) op.settle(reply);
    }
  });
}
