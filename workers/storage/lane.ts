/**
 * A lane: one Postgres connection (our libpq binding, core/engine/pg-driver, in pipeline mode) with an
 * ordered queue.
 *
 *   submit ─▶ [queue] ──lane free?──▶ take ≤ batch-max-commands / -bytes ops
 *                                       cut into runs: [R R R][W W][S][P P][R] …
 *                                       one statement per run, all pipelined, in order
 *                                       ◀── results: resolve each op, take the next batch
 *
 * Runs: GET/MGET (R), plain SET/MSET (W), INCR family, and statement commands merge-run.ts
 * knows (P: pushes onto one key, SADD to one key); any other statement (S) runs alone.
 *
 * While a batch is in flight new ops queue, so light load gives batches of one (lowest latency)
 * and heavy load gives large batches with one commit each (group commit). Dispatch waits for
 * setImmediate so every client whose data arrived in this event-loop turn joins the batch.
 * Each run is its own sync group (its own implicit transaction), so a failing statement fails
 * only its own commands, as if each had been sent alone.
 */
import { NativePgConnection, type PgParam } from '../../core/engine/pg-driver/native-conn';
import { PgConnectionError } from '../../core/engine/pg-driver/errors';
import type { PgResult } from '../../core/engine/pg-driver/result';
import { typedRows } from '../../core/engine/pg-driver/typed-rows';
import { Err, wrongTypeOrNull } from './replies';
import { OpKind, opBytes, type IncrOp, type Op, type ReadOp, type StmtOp, type TxOp, type WriteOp } from './ops';
import { mergeRunOf, type MergeRun } from './merge-run';
import { kSql } from './statements';
import { kTransactionSql } from '../../core/engine/commands/transactions/sql';
import { writeOrder } from '../../core/engine/write-order';
import { encodeBufferArray, int2Array, int8, int8Array } from '../../core/engine/pg-driver/binary-array';
import { kOk } from '../../core/engine/shared-replies';
import { RespError, type Reply } from '../../core/engine/reply';
import type { LaneStats } from '../../core/messages';
import { newHistogram, record } from '../../core/metrics/log2-histogram';

export interface LaneOptions {
  url: string;
  /** libpq `options`: search_path, synchronous_commit, jit */
  startupOptions: string;
  maxCommands: () => number;
  maxBytes: () => number;
  log: (line: string) => void;
}

const kBackoffMs = [50, 100, 200, 500, 1000, 2000];

type Done = (err: Error | null, res: PgResult | null) => void;

export class Lane {
  private queue: Op[] = [];
  private busy = false;
  private scheduled = false;
  private conn: NativePgConnection | undefined;
  private connecting: Promise<void> | undefined;
  private lastError: string | undefined;
  private failures = 0;
  private closed = false;
  private stats: LaneStats = emptyLaneStats();
  /** statements of the batch in flight that have not answered yet */
  private outstanding = 0;
  private batchStarted = 0n;

  constructor(private readonly opts: LaneOptions) {}

  start(): Promise<void> {
    return this.connect();
  }

  submit(op: Op): void {
    if (this.conn === undefined && this.lastError !== undefined && this.connecting === undefined) {
      // Postgres is down: answer at once, never hang; a reconnect attempt is already scheduled
      op.resolve(Err.storage(this.lastError));
      return;
    }
    this.queue.push(op);
    if (!this.busy && !this.scheduled) {
      this.scheduled = true;
      setImmediate(this.dispatch);
    }
  }

  private connect(): Promise<void> {
    if (this.connecting) return this.connecting;
    this.connecting = NativePgConnection.connect(this.opts.url, {
      libpq: { options: this.opts.startupOptions, application_name: 'postresp-lane' },
    }).then((conn) => {
      conn.onClose = (e) => this.lost(conn, e);
      this.conn = conn;
      this.lastError = undefined;
      this.failures = 0;
      this.connecting = undefined;
      if (this.closed) { conn.close(); return; }
      if (this.queue.length > 0 && !this.busy) setImmediate(this.dispatch);
    }, (e: Error) => {
      this.connecting = undefined;
      this.lastError = e.message;
      this.failAll(e.message);
      this.retry();
      throw e;
    });
    return this.connecting;
  }

  /** The connection ended: its pending statements have already failed (and resolved their ops). */
  private lost(conn: NativePgConnection, e: Error | undefined): void {
    // close() ends the connection on purpose: no "lost" log, no reconnect
    if (this.conn !== conn || this.closed || e === undefined) return;
    this.conn = undefined;
    this.lastError = e.message;
    this.stats.errors++;
    this.opts.log(`Postgres connection lost: ${e.message}; reconnecting`);
    this.failAll(e.message);
    this.retry();
  }

  private retry(): void {
    if (this.closed) return;
    const delay = kBackoffMs[Math.min(this.failures++, kBackoffMs.length - 1)];
    setTimeout(() => {
      if (this.closed || this.conn || this.connecting) return;
      this.stats.reconnects++;
      this.connect().catch(() => undefined);
    }, delay).unref();
  }

  private failAll(message: string): void {
    const q = this.queue;
    this.queue = [];
    for (const op of q) op.resolve(Err.storage(message));
  }

  private readonly dispatch = (): void => {
    this.scheduled = false;
    if (this.busy || this.queue.length === 0) return;
    const conn = this.conn;
    if (conn === undefined) return; // connect() dispatches once connected, or fails the queue
    const batch = this.take();
    this.busy = true;
    this.stats.batches++;
    this.stats.ops += batch.length;
    record(this.stats.batchSize, batch.length);
    this.batchStarted = process.hrtime.bigint();
    // one extra count so the batch cannot finish while it is still being sent
    this.outstanding = 1;
    let i = 0;
    while (i < batch.length) {
      const kind = batch[i].kind;
      let j = i + 1;
      let merge: MergeRun | undefined;
      if (kind === OpKind.Read || kind === OpKind.Write || kind === OpKind.Incr) while (j < batch.length && batch[j].kind === kind) j++;
      else if ((merge = mergeRunOf(batch[i])) !== undefined) while (j < batch.length && merge.same(batch[i] as StmtOp, batch[j])) j++;
      if (kind === OpKind.Tx) this.runTx(conn, batch[i] as TxOp);
      else if (merge !== undefined && j - i > 1) this.runMerged(conn, merge, batch.slice(i, j) as StmtOp[]);
      else this.runOps(conn, batch, i, j);
      i = j;
    }
    this.settled();
  };

  /** One statement of the batch answered; the last one frees the lane for the next batch. */
  private settled(): void {
    if (--this.outstanding > 0) return;
    record(this.stats.batchUsec, Number(process.hrtime.bigint() - this.batchStarted) / 1000);
    this.busy = false;
    if (this.queue.length > 0) this.dispatch();
  }

  private take(): Op[] {
    const maxOps = this.opts.maxCommands();
    const maxBytes = this.opts.maxBytes();
    let n = 0;
    let bytes = 0;
    while (n < this.queue.length && n < maxOps) {
      const op = this.queue[n];
      // a transaction whose WATCH is in this batch: its check needs that answer, so next batch
      if (n > 0 && op.kind === OpKind.Tx && op.watch.some((w) => w.pending !== undefined)) break;
      bytes += opBytes(op);
      n++;
      if (bytes >= maxBytes) break;
    }
    const batch = n === this.queue.length ? this.queue : this.queue.slice(0, n);
    this.queue = n === this.queue.length ? [] : this.queue.slice(n);
    return batch;
  }

  /**
   * Sends one statement as its own sync group; `done` runs once the Sync answered: Postgres may
   * send a statement's result before its commit (whenever its output buffer fills), and no reply
   * may leave before the commit of what it acknowledges.
   */
  private send(conn: NativePgConnection, sql: string, values: readonly unknown[], done: Done): void {
    this.outstanding++;
    this.stats.statements++;
    let stmtErr: Error | null = null;
    let stmtRes: PgResult | null = null;
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

  private runOps(conn: NativePgConnection, batch: Op[], from: number, to: number): void {
    const first = batch[from];
    const fail = (e: Error) => this.fail(batch, from, to, e);
    if (first.kind === OpKind.Read) {
      const ops = batch.slice(from, to) as ReadOp[];
      let total = 0;
      for (const op of ops) total += op.keys.length;
      const dbs = new Int16Array(total);
      const keys = new Array<Buffer>(total);
      let at = 0;
      for (const op of ops) for (const k of op.keys) { dbs[at] = op.db; keys[at++] = k; }
      // as they are: the connection's encoder writes int2[] / bytea[] into its reused buffer
      this.send(conn, kSql.read.text, [dbs, keys, int8(Date.now())],
        (err, res) => (err ? fail(err) : resolveReads(ops, res!, keys.length)));
    } else if (first.kind === OpKind.Write) {
      const ops = batch.slice(from, to) as WriteOp[];
      this.send(conn, kSql.write.text, writeArrays(ops), (err) => {
        if (err) return fail(err);
        for (const op of ops) op.resolve(kOk);
      });
    } else if (first.kind === OpKind.Incr) {
      const ops = batch.slice(from, to) as IncrOp[];
      const params = [int2Array(ops.map((o) => o.db)), encodeBufferArray(ops.map((o) => o.key)), int8Array(ops.map((o) => o.delta)), int8(Date.now())];
      this.send(conn, kSql.incrMany.text, params, (err, res) => (err ? fail(err) : resolveIncrs(ops, res!)));
    } else if (first.kind === OpKind.Stmt) {
      this.send(conn, first.stmt.text, first.values, (err, res) => {
        if (err) return fail(err);
        let reply: Reply;
        try {
          reply = first.map(typedRows(res!));
        } catch (e) {
          reply = new RespError(`ERR internal error: ${(e as Error).message}`);
        }
        first.resolve(reply);
      });
    } else {
      this.runTx(conn, first);
    }
  }

  /** A statement failed: its ops [from, to) get the error (the other runs are unaffected). */
  private fail(ops: Op[], from: number, to: number, e: Error): void {
    this.stats.errors++;
    const reply = errorReply(e);
    for (let k = from; k < to; k++) ops[k].resolve(reply);
  }

  /** A run of mergeable statement commands as one statement (merge-run.ts). */
  private runMerged(conn: NativePgConnection, merge: MergeRun, ops: StmtOp[]): void {
    this.send(conn, merge.text, merge.values(ops), (err, res) => {
      if (err) return this.fail(ops, 0, ops.length, err);
      let rows: unknown[][];
      try {
        rows = typedRows(res!);
      } catch (e) {
        const reply = new RespError(`ERR internal error: ${(e as Error).message}`);
        for (const op of ops) op.resolve(reply);
        return;
      }
      merge.resolve(ops, rows);
    });
  }

  /**
   * One transaction in the pipeline, each statement its own sync group. A statement error inside
   * aborts it: Postgres then fails the rest with 25P02 and answers COMMIT with a rollback, which
   * we report instead of the replies (nothing is acknowledged that was not committed).
   */
  private runTx(conn: NativePgConnection, tx: TxOp): void {
    let watchFailed = false;
    let failure: string | undefined;
    const note = (e: Error | null) => {
      if (e === null) return;
      if ((e as Error & { code?: string }).code === 'PRW01') watchFailed = true;
      else failure ??= e.message;
    };
    this.send(conn, 'BEGIN', [], note);
    if (tx.watch.length > 0) {
      const w = tx.watch;
      this.send(conn, kTransactionSql.watchCheck.text, [int2Array(w.map((k) => k.db)), encodeBufferArray(w.map((k) => k.key)),
        int8Array(w.map((k) => Number(k.version))), int8(Date.now())], note);
    }
    for (const op of tx.ops) {
      if (op.kind === OpKind.Tx) { op.resolve(Err.storage('nested transaction')); continue; }
      this.runOps(conn, [op], 0, 1);
    }
    this.send(conn, 'COMMIT', [], (err) => {
      note(err);
      tx.resolve(watchFailed ? null : failure !== undefined ? new RespError(`ERR transaction failed: ${failure}`) : kOk);
    });
  }

  snapshot(): LaneStats {
    return { ...this.stats, connected: this.conn !== undefined };
  }

  resetStats(): void {
    this.stats = emptyLaneStats();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.failAll('server shutting down');
    await this.conn?.close();
    this.conn = undefined;
  }
}

/**
 * A statement error fails its run only; a lost connection (the lane reconnects) or a server
 * shutting down is "unavailable", whatever the wording Postgres or the socket used.
 */
function errorReply(e: Error): RespError {
  if (e instanceof PgConnectionError) return Err.storage(e.message);
  const code = (e as Error & { code?: string }).code;
  return new RespError(`ERR PostgreSQL error ${code}: ${e.message}`);
}

function emptyLaneStats(): LaneStats {
  return { batches: 0, ops: 0, statements: 0, errors: 0, reconnects: 0, connected: false, batchSize: newHistogram(), batchUsec: newHistogram() };
}

function resolveReads(ops: ReadOp[], res: PgResult, total: number): void {
  const found: Reply[] = new Array(total).fill(null);
  for (let r = 0; r < res.rowCount; r++) {
    const i = res.int(r, 0)! - 1;
    found[i] = res.int(r, 1) === 0 ? res.value(r, 2) : wrongTypeOrNull;
  }
  let at = 0;
  for (const op of ops) {
    if (!op.multi) {
      const v = found[at++];
      op.resolve(v === wrongTypeOrNull ? Err.wrongType : v);
      continue;
    }
    const out: Reply[] = new Array(op.keys.length);
    for (let k = 0; k < op.keys.length; k++, at++) out[k] = found[at] === wrongTypeOrNull ? null : found[at];
    op.resolve(out);
  }
}

/** incr_many rows: (i, status, result); statuses as incr_by's (core/engine/commands/string/functions.ts). */
function resolveIncrs(ops: IncrOp[], res: PgResult): void {
  for (let r = 0; r < res.rowCount; r++) {
    const op = ops[res.int(r, 0)! - 1];
    const status = res.int(r, 1);
    op.resolve(status === 2 ? Err.wrongType : status === 3 ? Err.notInteger : status === 4 ? Err.overflow : res.bigint(r, 2)!);
  }
}

/** Last write wins per (db, key) within the run; rows in (db, key) order (core/engine/write-order.ts). */
export function writeArrays(ops: WriteOp[]): unknown[] {
  let n = 0;
  for (const op of ops) n += op.kv.length >> 1;
  const dbs = new Array<number>(n);
  const keys = new Array<Buffer>(n);
  const values = new Array<Buffer>(n);
  const exps = new Array<number | null>(n);
  let r = 0;
  for (const op of ops) {
    const kv = op.kv;
    for (let i = 0; i < kv.length; i += 2, r++) {
      dbs[r] = op.db;
      keys[r] = kv[i];
      values[r] = kv[i + 1];
      exps[r] = op.exp;
    }
  }
  const order = writeOrder(dbs, keys);
  const m = order.length;
  const sDbs = new Int16Array(m);
  const sKeys = new Array<Buffer>(m);
  const sValues = new Array<Buffer>(m);
  const sExps = new Array<number | null>(m);
  for (let i = 0; i < m; i++) {
    const a = order[i];
    sDbs[i] = dbs[a];
    sKeys[i] = keys[a];
    sValues[i] = values[a];
    sExps[i] = exps[a];
  }
  // dbs, keys and values go to the connection's parameter encoder as they are: it writes them
  // as binary int2[] / bytea[] into the buffer it reuses for every statement (a bytea[] Buffer
  // built here was a fresh 256 KiB allocation per 256-row batch of 1 KiB values). expires_at
  // stays a pre-encoded int8[]: an array of only nulls would go out typed as bytea[].
  return [sDbs, sKeys, sValues, int8Array(sExps)];
}
