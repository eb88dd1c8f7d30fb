/**
 * MULTI/EXEC on a lane: BEGIN, the watch check, each queued op alone, COMMIT — one transaction in
 * the pipeline, each statement its own sync group. A statement error inside aborts it: Postgres
 * then fails the rest with 25P02 and answers COMMIT with a rollback, which the TxOp reports
 * instead of the replies (nothing is acknowledged that was not committed).
 */
import { OpKind, type Op, type TxOp } from '../../core/engine/ops';
import { RespError } from '../../core/engine/reply';
import { kOk } from '../../core/engine/shared-replies';
import { encodeBufferArray, int2Array, int8, int8Array } from '../../core/engine/pg-driver/binary-array';
import type { Pipeline } from './pipeline';
import { storageError } from './replies';
import { kTransactionSql } from '../../core/engine/commands/transactions/sql';

/** SQLSTATE watch_check() raises when a watched key changed (core/engine/sql/functions-watch.ts) */
const kWatchChanged = 'PRW01';

export function sendTx(p: Pipeline, tx: TxOp, sendAlone: (op: Op, inTx: Pipeline) => void): void {
  let watchFailed = false;
  let failure: string | undefined;
  const note = (e: Error | null) => {
    if (e === null) return;
    if ((e as Error & { code?: string }).code === kWatchChanged) watchFailed = true;
    else failure ??= e.message;
  };
  p.send('BEGIN', [], note);
  if (tx.watch.length > 0) {
    const w = tx.watch;
    p.send(kTransactionSql.watchCheck.text, [int2Array(w.map((k) => k.db)), encodeBufferArray(w.map((k) => k.key)),
      int8Array(w.map((k) => Number(k.version))), int8(Date.now())], note);
  }
  // An op's statement error aborts the transaction, yet Postgres answers the COMMIT after it
  // with a plain "ROLLBACK" tag, not an error: the failure must be noted where the op fails.
  const inTx: Pipeline = {
    send: (sql, values, done) => p.send(sql, values, done),
    fail(ops, e) { note(e); p.fail(ops, e); },
  };
  for (const op of tx.ops) {
    if (op.kind === OpKind.Tx) op.settle(storageError('nested transaction'));
    else sendAlone(op, inTx);
  }
  p.send('COMMIT', [], (err) => {
    note(err);
    tx.settle(watchFailed ? null : failure !== undefined ? new RespError(`ERR transaction failed: ${failure}`) : kOk);
  });
}
