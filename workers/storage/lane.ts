/**
 * A lane: one Postgres connection (our libpq binding, core/engine/pg-driver, in pipeline mode;
 * its life in lane-connection.ts) with an ordered queue of ops (core/engine/ops.ts).
 *
 *   submit ─▶ [queue] ──lane free?──▶ take ≤ batch-max-commands / -bytes ops (take.ts)
 *                                       cut into runs: [R R R][W W][S][P P][R] … (runs.ts)
 *                                       one statement per run, all pipelined, in order
 *                                       ◀── results: each run answers its ops, take the next batch
 *
 * While a batch is in flight new ops queue, so light load gives batches of one (lowest latency)
 * and heavy load gives large batches with one commit each (group commit). Dispatch waits for
 * setImmediate so every client whose data arrived in this event-loop turn joins the batch.
 * A batch of several runs is one transaction (batch-tx.ts, --batch-transaction yes): one commit
 * for all of them. If any statement of it fails, nothing was committed or answered: a deadlock
 * victim runs again as one transaction; after any other error the batch runs again one run at a
 * time, each its own sync group (its own implicit transaction), so a failing statement fails only
 * its own commands, as if each had been sent alone.
 */
import type { NativePgConnection, PgParam } from '../../core/engine/pg-driver/native-conn';
import type { PgResult } from '../../core/engine/pg-driver/result';
import { OpKind, type Op } from '../../core/engine/ops';
import type { LaneStats } from '../../core/messages';
import { newHistogram, record } from '../../core/metrics/log2-histogram';
import { BatchTransaction } from './batch-tx';
import { LaneConnection, type ConnectionOptions } from './lane-connection';
import type { Done, Pipeline } from './pipeline';
import { errorReply, storageError } from './replies';
import { runEnd, sendRun } from './runs';
import { batchLength } from './take';

export interface LaneOptions extends ConnectionOptions {
  maxCommands: () => number;
  maxBytes: () => number;
  /** --batch-transaction: a batch of several runs commits once */
  batchTransaction: () => boolean;
  /** the connection was lost (the read cache drops everything: Postgres may have restarted) */
  lost?: () => void;
}

export class Lane implements Pipeline {
  private queue: Op[] = [];
  private busy = false;
  private scheduled = false;
  private readonly connection: LaneConnection;
  private stats: LaneStats = emptyLaneStats();
  /** the connection the batch in flight is sent on */
  private conn: NativePgConnection | undefined;
  /** statements of the batch in flight that have not answered yet */
  private outstanding = 0;
  private batchStarted = 0n;
  /** the last op of the batch in flight while it goes out run by run (undefined in a transaction) */
  private runsTail: Op | undefined;
  /** re-sends of the batch in flight's last run after a deadlock or serialization failure */
  private resends = 0;
  /** a failed batch transaction going out run by run: its runs from `next` (sendRunsInTurn) */
  private turn: { batch: Op[]; next: number } | undefined;
  /** told each batch's size (--shared-lanes: other workers forward to this lane while they are small) */
  onBatch: ((ops: number) => void) | undefined = undefined;
  /** the op submitted last: a script call of a client on this lane starts once it answered */
  last: Op | undefined = undefined;

  constructor(private readonly opts: LaneOptions) {
    this.connection = new LaneConnection(opts, {
      up: () => { opts.lost?.(); if (this.queue.length > 0 && !this.busy) setImmediate(this.dispatch); },
      down: (message, lost) => {
        opts.lost?.();
        if (lost) this.stats.errors++;
        this.failAll(message);
      },
      retrying: () => { this.stats.reconnects++; },
    });
  }

  start(): Promise<void> {
    return this.connection.connect();
  }

  submit(op: Op): void {
    const down = this.connection.downMessage;
    if (down !== undefined) {
      // Postgres is down: answer at once, never hang; a reconnect attempt is already scheduled
      op.settle(storageError(down));
      return;
    }
    this.queue.push(op);
    this.last = op;
    if (!this.busy && !this.scheduled) {
      this.scheduled = true;
      setImmediate(this.dispatch);
    }
  }

  private failAll(message: string): void {
    const q = this.queue;
    this.queue = [];
    for (const op of q) op.settle(storageError(message));
  }

  private readonly dispatch = (): void => {
    this.scheduled = false;
    if (this.busy || this.queue.length === 0) return;
    const conn = this.connection.conn;
    if (conn === undefined) return; // connect() dispatches once connected, or fails the queue
    const batch = this.take();
    this.busy = true;
    this.conn = conn;
    this.stats.batches++;
    this.stats.ops += batch.length;
    record(this.stats.batchSize, batch.length);
    this.onBatch?.(batch.length);
    this.batchStarted = process.hrtime.bigint();
    // one extra count so the batch cannot finish while it is still being sent
    this.outstanding = 1;
    if (this.opts.batchTransaction() && inOneTransaction(batch)) this.sendTransaction(conn, batch);
    else this.sendRuns(batch);
    this.settled();
  };

  /** Each run its own sync group. */
  private sendRuns(batch: Op[]): void {
    this.runsTail = batch[batch.length - 1];
    this.resends = 0;
    for (let i = 0; i < batch.length;) {
      const j = runEnd(batch, i);
      sendRun(this, batch, i, j);
      i = j;
    }
  }

  /**
   * Each run its own sync group, the next sent only once this one answered: every run is then
   * the last one sent, so a deadlock victim among them can be sent again (mayResend) where a
   * pipelined split could only re-send the batch's last run (an earlier victim's error reached
   * its client: SMOVE answered 40P01 in a fresh clone's full run). Only a batch transaction that
   * failed on an error of its own comes here (commands answer errors as values; a deadlock retries
   * the transaction whole), so one round trip per run costs nothing on the common path.
   */
  private sendRunsInTurn(batch: Op[], from: number): void {
    const j = runEnd(batch, from);
    this.runsTail = batch[j - 1];
    this.resends = 0;
    this.turn = j < batch.length ? { batch, next: j } : undefined;
    sendRun(this, batch, from, j);
  }

  /** The batch's runs in one transaction; on an error, again (nothing was answered): whole or run by run. */
  private sendTransaction(conn: NativePgConnection, batch: Op[], txAttempt = 0): void {
    this.runsTail = undefined;
    const tx = new BatchTransaction(conn, (ops, e) => this.fail(ops, e));
    for (let i = 0; i < batch.length;) {
      const j = runEnd(batch, i);
      sendRun(tx, batch, i, j);
      i = j;
    }
    this.outstanding++;
    this.stats.txBatches++;
    this.stats.statements += tx.statements + 2;
    tx.commit(() => this.settled(), (e) => {
      this.stats.txRetries++;
      // sent before this transaction's count is released: the lane stays busy until they answer.
      // Nothing of it committed or answered: a deadlock victim (40P01, another lane or SQL took
      // the same rows in the other order) or serialization failure runs again whole, one commit
      if (isConflict(e) && txAttempt < kMaxResends) this.sendTransaction(conn, batch, txAttempt + 1);
      else this.sendRunsInTurn(batch, 0);
      this.settled();
    });
  }

  private take(): Op[] {
    const n = batchLength(this.queue, this.opts.maxCommands(), this.opts.maxBytes());
    const all = n === this.queue.length;
    const batch = all ? this.queue : this.queue.slice(0, n);
    this.queue = all ? [] : this.queue.slice(n);
    return batch;
  }

  /** One statement of the batch answered; the last one frees the lane for the next batch. */
  private settled(): void {
    if (--this.outstanding > 0) return;
    const turn = this.turn;
    if (turn !== undefined) {
      // a failed batch transaction going out run by run: this run answered, send the next
      this.outstanding = 1;
      this.sendRunsInTurn(turn.batch, turn.next);
      this.settled();
      return;
    }
    record(this.stats.batchUsec, Number(process.hrtime.bigint() - this.batchStarted) / 1000);
    this.busy = false;
    if (this.queue.length > 0) this.dispatch();
  }

  send(sql: string, values: readonly unknown[], done: Done): void {
    this.outstanding++;
    this.stats.statements++;
    let stmtErr: Error | null = null;
    let stmtRes: PgResult | null = null;
    const conn = this.conn!;
    conn.send(sql, values as readonly PgParam[], (err, res) => {
      stmtErr = err;
      stmtRes = res;
    });
    conn.sync((syncErr) => {
      try {
        done(stmtErr ?? syncErr, stmtErr ?? syncErr ? null : stmtRes);
      } finally {
        this.settled();
      }
    });
  }

  fail(ops: readonly Op[], e: Error): void {
    if (this.mayResend(ops, e)) {
      // its statement rolled back alone (autocommit) and nothing of this lane was sent after it:
      // sending it again is what serial execution would have done, so the client sees no error
      this.resends++;
      this.stats.conflictResends++;
      sendRun(this, ops as Op[], 0, ops.length);
      return;
    }
    this.stats.errors++;
    const reply = errorReply(e);
    for (const op of ops) op.settle(reply);
  }

  /**
   * A deadlock victim (40P01: another lane's batch transaction, or SQL run on the tables, locked
   * the same rows in the other order) or a serialization failure, when the run is the last one
   * of its batch: at most kMaxResends times. An earlier run's statement cannot be re-sent, since
   * the runs after it already ran (its commands then answer the error, as before).
   */
  private mayResend(ops: readonly Op[], e: Error): boolean {
    return isConflict(e) && this.runsTail !== undefined && ops[ops.length - 1] === this.runsTail &&
      this.resends < kMaxResends;
  }

  snapshot(): LaneStats {
    return { ...this.stats, connected: this.connection.conn !== undefined };
  }

  resetStats(): void {
    this.stats = emptyLaneStats();
  }

  close(): Promise<void> {
    this.failAll('server shutting down');
    return this.connection.close();
  }
}

function emptyLaneStats(): LaneStats {
  return {
    batches: 0, ops: 0, statements: 0, errors: 0, reconnects: 0, txBatches: 0, txRetries: 0, conflictResends: 0, connected: false,
    batchSize: newHistogram(), batchUsec: newHistogram(),
  };
}

/**
 * Worth one transaction: at least two runs (one run is one statement: its own implicit
 * transaction already), no MULTI/EXEC (it brings its own BEGIN and COMMIT) and no WATCH (it must
 * see the versions of other transactions: StmtOp.ownTransaction).
 */
/** a run (or batch transaction) that keeps deadlocking is answered with the error after this many re-sends */
const kMaxResends = 5;

/** a deadlock victim or serialization failure: rolled back whole, worth sending again */
function isConflict(e: Error): boolean {
  const code = (e as Error & { code?: string }).code;
  return code === '40P01' || code === '40001';
}

export function inOneTransaction(batch: readonly Op[]): boolean {
  let runs = 0;
  for (let i = 0; i < batch.length;) {
    const op = batch[i];
    if (op.kind === OpKind.Tx || (op.kind === OpKind.Stmt && op.ownTransaction)) return false;
    i = runEnd(batch, i);
    runs++;
  }
  return runs > 1;
}
