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
 *
 * Pipelined batches (--batch-pipeline-min): behind a batch in flight that is ONE run of reads or
 * on one key (one statement, its own implicit transaction: a hot key's pushes or pops, which
 * cannot be a deadlock victim: take.ts mayLead) the next batch goes out
 * at once, before the first one answered, once that many ops of plain kinds queued (take.ts
 * followLength). Postgres runs it as soon as the first one committed instead of idling while this
 * thread turns results into replies and waits for the run queue. Results come back in the order
 * sent, so replies keep their order, each after its own commit; a failing statement still fails
 * only its own run. A deadlock victim is sent again only when nothing of the lane went out after
 * it (were a run with a batch behind it ever one, it would answer its 40P01). Measured at load
 * 12–19 on 2 cores (docs/BENCHMARKS.md, branch h18-push): `-t lpush` and `-t rpush,rpop` at
 * `-n 300000` ran 1.2–1.7× the requests/s at the same CPU per request; the lane backends were idle
 * in 54–84% of 5 ms samples without it, and every thread waited 5–25× its run time in the run
 * queue, so a batch that is already in Postgres when the last one commits saves a wake-up.
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
import { batchLength, followLength, mayLead } from './take';

export interface LaneOptions extends ConnectionOptions {
  maxCommands: () => number;
  maxBytes: () => number;
  /** --batch-transaction: a batch of several runs commits once */
  batchTransaction: () => boolean;
  /** --batch-pipeline-min: queued ops that go out behind a one-run batch in flight (0 or absent: never) */
  pipelineMin?: () => number;
  /** the connection was lost (the read cache drops everything: Postgres may have restarted) */
  lost?: () => void;
  /** --batch-gather-ms: how long at most a batch that answered waits for its clients' next ops (0: never) */
  gatherMs?: () => number;
  /** only a batch whose flight took this long gathers (absent: kGatherMinFlightUs; tests pass 0) */
  gatherMinFlightUs?: number;
}

/**
 * A gather pays where a batch's flight is long next to a client's turnaround (reply, next command:
 * ~50–100 µs at -c 20 -P 1 here): a `logged` commit waits for its WAL flush (0.3–1.3 ms), an
 * unlogged 5-SET batch is back in ~150 µs, and waiting for the other half there cost node as much
 * CPU as it saved Postgres (docs/BENCHMARKS.md "Node CPU per SET at the seed config").
 */
const kGatherMinFlightUs = 500;
/**
 * After a gather that ran out its time (the answered clients did not come back: open-loop traffic,
 * idle clients), this many batches go out at once: such traffic waits gatherMs once per 64
 * batches, not on every one.
 */
const kGatherBackoff = 64;

/** One batch in flight: the pipeline its runs send into. */
class Flight implements Pipeline {
  /** statements not answered yet; one extra count so the batch cannot finish while it is still being sent */
  outstanding = 1;
  readonly started = process.hrtime.bigint();
  /** the last op of the batch while it goes out run by run (undefined in a transaction) */
  runsTail: Op | undefined;
  /** re-sends of its last run after a deadlock or serialization failure */
  resends = 0;
  /** a failed batch transaction going out run by run: its runs from `next` (sendRunsInTurn) */
  turn: { batch: Op[]; next: number } | undefined;
  /** one run that cannot be a deadlock victim (take.ts mayLead): a next batch may go out behind it */
  leads = false;
  /** it went out after a gather: its clients take turns no more, wait for them again when it answers */
  gathered = false;

  constructor(private readonly lane: Lane, readonly conn: NativePgConnection, readonly size: number) {}

  send(sql: string, values: readonly unknown[], done: Done): void {
    this.lane.sendIn(this, sql, values, done);
  }

  fail(ops: readonly Op[], e: Error): void {
    this.lane.failIn(this, ops, e);
  }
}

export class Lane {
  private queue: Op[] = [];
  private scheduled = false;
  private readonly connection: LaneConnection;
  private stats: LaneStats = emptyLaneStats();
  /** batches sent and not answered yet, oldest first: two at most, the first one run (Flight.leads) */
  private flights: Flight[] = [];
  /** told each batch's size (--shared-lanes: other workers forward to this lane while they are small) */
  onBatch: ((ops: number) => void) | undefined = undefined;
  /** ops still expected before the queue goes out (gather): the clients of the batch that just answered */
  private gatherLeft = 0;
  private gatherTimer: NodeJS.Timeout | undefined = undefined;
  /** gatherMs > 0 when the last batch went out: submits are counted per synchronous run */
  private gathering = false;
  /** batches still sent without a gather after one timed out (kGatherBackoff) */
  private gatherSkip = 0;
  /** ops submitted since the last microtask checkpoint: those a batch's own answer submitted (in-process callers) */
  private tickSubmits = 0;

  constructor(private readonly opts: LaneOptions) {
    this.connection = new LaneConnection(opts, {
      up: () => { opts.lost?.(); if (this.queue.length > 0 && this.flights.length === 0) setImmediate(this.dispatch); },
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
    if (this.gathering && this.tickSubmits++ === 0) queueMicrotask(this.tickEnd);
    if (this.gatherLeft > 0 && --this.gatherLeft > 0) return;
    if (!this.scheduled && this.mayDispatch()) {
      this.scheduled = true;
      setImmediate(this.dispatch);
    }
  }

  /** ops waiting for this lane's next batch, and whether a batch is in Postgres (LaneStore's spill rule) */
  get queued(): number { return this.queue.length; }
  get inFlight(): boolean { return this.flights.length > 0; }

  /** nothing in flight, or one run that a next batch may follow */
  private mayDispatch(): boolean {
    const n = this.flights.length;
    return n === 0 || (n === 1 && this.flights[0].leads && (this.opts.pipelineMin?.() ?? 0) > 0);
  }

  private failAll(message: string): void {
    this.stopGather();
    const q = this.queue;
    this.queue = [];
    for (const op of q) op.settle(storageError(message));
  }

  private readonly dispatch = (): void => {
    this.scheduled = false;
    const gathered = this.stopGather();
    if (this.queue.length === 0 || !this.mayDispatch()) return;
    const conn = this.connection.conn;
    if (conn === undefined) return; // connect() dispatches once connected, or fails the queue
    const batch = this.flights.length === 0 ? this.take() : this.takeFollower();
    if (batch === undefined) return; // too few plain ops behind the batch in flight: it takes them when it answers
    const f = new Flight(this, conn, batch.length);
    f.gathered = gathered;
    this.gathering = (this.opts.gatherMs?.() ?? 0) > 0;
    this.flights.push(f);
    this.stats.batches++;
    this.stats.ops += batch.length;
    record(this.stats.batchSize, batch.length);
    this.onBatch?.(batch.length);
    if (this.opts.batchTransaction() && inOneTransaction(batch)) this.sendTransaction(f, batch);
    else this.sendRuns(f, batch);
    this.settled(f);
    // more queued than this batch took (batch-max-commands): it may follow at once
    if (this.queue.length > 0 && !this.scheduled && this.mayDispatch()) {
      this.scheduled = true;
      setImmediate(this.dispatch);
    }
  };

  /** Each run its own sync group. */
  private sendRuns(f: Flight, batch: Op[]): void {
    f.runsTail = batch[batch.length - 1];
    f.resends = 0;
    for (let i = 0; i < batch.length;) {
      const j = runEnd(batch, i);
      if (i === 0 && j === batch.length) f.leads = mayLead(batch);
      sendRun(f, batch, i, j);
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
  private sendRunsInTurn(f: Flight, batch: Op[], from: number): void {
    const j = runEnd(batch, from);
    f.runsTail = batch[j - 1];
    f.resends = 0;
    f.turn = j < batch.length ? { batch, next: j } : undefined;
    sendRun(f, batch, from, j);
  }

  /** The batch's runs in one transaction; on an error, again (nothing was answered): whole or run by run. */
  private sendTransaction(f: Flight, batch: Op[], txAttempt = 0): void {
    f.runsTail = undefined;
    const tx = new BatchTransaction(f.conn, (ops, e) => this.failIn(f, ops, e));
    for (let i = 0; i < batch.length;) {
      const j = runEnd(batch, i);
      sendRun(tx, batch, i, j);
      i = j;
    }
    f.outstanding++;
    this.stats.txBatches++;
    this.stats.statements += tx.statements + 2;
    tx.commit(() => this.settled(f), (e) => {
      this.stats.txRetries++;
      // sent before this transaction's count is released: the lane stays busy until they answer.
      // Nothing of it committed or answered: a deadlock victim (40P01, another lane or SQL took
      // the same rows in the other order) or serialization failure runs again whole, one commit
      if (isConflict(e) && txAttempt < kMaxResends) this.sendTransaction(f, batch, txAttempt + 1);
      else this.sendRunsInTurn(f, batch, 0);
      this.settled(f);
    });
  }

  private take(): Op[] {
    const n = batchLength(this.queue, this.opts.maxCommands(), this.opts.maxBytes());
    const all = n === this.queue.length;
    const batch = all ? this.queue : this.queue.slice(0, n);
    this.queue = all ? [] : this.queue.slice(n);
    return batch;
  }

  /** The plain ops that go out behind the one-run batch in flight, or none while fewer than --batch-pipeline-min queued. */
  private takeFollower(): Op[] | undefined {
    // checked each turn new ops arrive while a batch is in flight: scan the queue only once it is long enough
    const min = this.opts.pipelineMin?.() ?? 0;
    if (this.queue.length < min) return undefined;
    const n = followLength(this.queue, this.opts.maxCommands(), this.opts.maxBytes());
    if (n === 0 || n < min) return undefined;
    const batch = this.queue.slice(0, n);
    this.queue = n === this.queue.length ? [] : this.queue.slice(n);
    return batch;
  }

  /** One statement of batch f answered; its last one frees its place for the next batch. */
  private settled(f: Flight): void {
    if (--f.outstanding > 0) return;
    const turn = f.turn;
    if (turn !== undefined) {
      // a failed batch transaction going out run by run: this run answered, send the next
      f.outstanding = 1;
      this.sendRunsInTurn(f, turn.batch, turn.next);
      this.settled(f);
      return;
    }
    const flightUs = Number(process.hrtime.bigint() - f.started) / 1000;
    record(this.stats.batchUsec, flightUs);
    this.stats.flightUsec += flightUs;
    // batches answer in the order sent: f is the oldest
    this.flights.splice(this.flights.indexOf(f), 1);
    if ((this.queue.length > 0 || f.gathered) && !this.gather(f.size, flightUs)) this.dispatch();
  }

  /**
   * At a low pipeline depth a lane's clients split into two halves that take turns: while one
   * half's batch is in Postgres the other half's commands queue, and each goes out the moment the
   * other answers (about 5 commands a batch at -c 20 -P 1 on 2 workers). Each batch costs a round
   * trip: node wake-ups, a statement, a commit. Instead, with ops queued, wait until the clients
   * just answered sent as many ops again (or gatherMs passed): the two halves go out as one batch.
   * False: send now (off, a batch in flight, or the queue already fills a batch).
   */
  private gather(answered: number, flightUs: number): boolean {
    const ms = this.opts.gatherMs?.() ?? 0;
    if (ms <= 0 || this.flights.length > 0 || this.scheduled) return false;
    if (flightUs < (this.opts.gatherMinFlightUs ?? kGatherMinFlightUs)) return false;
    if (this.gatherSkip > 0) {
      this.gatherSkip--;
      return false;
    }
    // what the answer's own callbacks submitted (in-process callers) is here already
    const expect = Math.min(answered - this.tickSubmits, this.opts.maxCommands() - this.queue.length);
    if (expect <= 0) return false;
    this.gatherLeft = expect;
    this.gatherTimer = setTimeout(this.gatherEnd, ms);
    return true;
  }

  private readonly tickEnd = (): void => {
    this.tickSubmits = 0;
  };

  /** gatherMs passed without every expected op: send what queued */
  private readonly gatherEnd = (): void => {
    this.gatherTimer = undefined;
    this.gatherLeft = 0;
    this.gatherSkip = kGatherBackoff;
    if (!this.scheduled && this.queue.length > 0 && this.mayDispatch()) this.dispatch();
  };

  /** true: a gather was under way */
  private stopGather(): boolean {
    this.gatherLeft = 0;
    if (this.gatherTimer === undefined) return false;
    clearTimeout(this.gatherTimer);
    this.gatherTimer = undefined;
    return true;
  }

  /** Pipeline.send of batch f: one statement as its own sync group. */
  sendIn(f: Flight, sql: string, values: readonly unknown[], done: Done): void {
    f.outstanding++;
    this.stats.statements++;
    let stmtErr: Error | null = null;
    let stmtRes: PgResult | null = null;
    f.conn.send(sql, values as readonly PgParam[], (err, res) => {
      stmtErr = err;
      stmtRes = res;
    });
    f.conn.sync((syncErr) => {
      try {
        done(stmtErr ?? syncErr, stmtErr ?? syncErr ? null : stmtRes);
      } finally {
        this.settled(f);
      }
    });
  }

  /** Pipeline.fail of batch f */
  failIn(f: Flight, ops: readonly Op[], e: Error): void {
    if (this.mayResend(f, ops, e)) {
      // its statement rolled back alone (autocommit) and nothing of this lane was sent after it:
      // sending it again is what serial execution would have done, so the client sees no error
      f.resends++;
      this.stats.conflictResends++;
      sendRun(f, ops as Op[], 0, ops.length);
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
   * the runs after it already ran (its commands then answer the error, as before); nor one with
   * a pipelined batch behind it.
   */
  private mayResend(f: Flight, ops: readonly Op[], e: Error): boolean {
    return isConflict(e) && f.runsTail !== undefined && ops[ops.length - 1] === f.runsTail &&
      f.resends < kMaxResends && this.flights[this.flights.length - 1] === f;
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
    batchSize: newHistogram(), batchUsec: newHistogram(), flightUsec: 0,
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

