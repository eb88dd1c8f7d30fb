/**
 * A lane: one Postgres connection (node-postgres pipeline mode) with an ordered queue.
 *
 *   submit ─▶ [queue] ──lane free?──▶ take ≤ batch-max-commands / -bytes ops
 *                                       cut into runs: [R R R][W W][S][R] …
 *                                       one statement per run, all pipelined, in order
 *                                       ◀── results: resolve each op, take the next batch
 *
 * While a batch is in flight new ops queue, so light load gives batches of one (lowest latency)
 * and heavy load gives large batches with one commit each (group commit). Dispatch waits for
 * setImmediate so every client whose data arrived in this event-loop turn joins the batch.
 */
import pg from 'pg';
import { Err, wrongTypeOrNull } from './replies';
import { OpKind, opBytes, type Op, type ReadOp, type TxOp, type WriteOp } from './ops';
import { kSql } from './statements';
import { byteaArray, int2Array, int8, int8Array } from './pg-binary';
import { kOk } from '../../core/shared-replies';
import { RespError, type Reply } from '../../core/reply';
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

export class Lane {
  private queue: Op[] = [];
  private busy = false;
  private scheduled = false;
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private lastError: string | undefined;
  private failures = 0;
  private closed = false;
  private stats: LaneStats = emptyLaneStats();

  constructor(private readonly opts: LaneOptions) {}

  start(): Promise<void> {
    return this.connect();
  }

  submit(op: Op): void {
    if (this.client === undefined && this.lastError !== undefined && this.connecting === undefined) {
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
    const client = new pg.Client({ connectionString: this.opts.url, options: this.opts.startupOptions, pipeline: true } as pg.ClientConfig);
    this.connecting = client.connect().then(() => {
      client.on('error', (e: Error) => this.lost(client, e));
      client.on('end', () => this.lost(client, new Error('connection ended')));
      this.client = client;
      this.lastError = undefined;
      this.failures = 0;
      this.connecting = undefined;
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

  private lost(client: pg.Client, e: Error): void {
    // close() ends the connection on purpose: no "lost" log, no reconnect
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.lastError = e.message;
    this.stats.errors++;
    this.opts.log(`Postgres connection lost: ${e.message}; reconnecting`);
    client.end().catch(() => undefined);
    this.failAll(e.message);
    this.retry();
  }

  private retry(): void {
    if (this.closed) return;
    const delay = kBackoffMs[Math.min(this.failures++, kBackoffMs.length - 1)];
    setTimeout(() => {
      if (this.closed || this.client || this.connecting) return;
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
    const client = this.client;
    if (client === undefined) return; // connect() dispatches once connected, or fails the queue
    const batch = this.take();
    this.busy = true;
    this.stats.batches++;
    this.stats.ops += batch.length;
    record(this.stats.batchSize, batch.length);
    const started = process.hrtime.bigint();
    const pending: Promise<void>[] = [];
    let i = 0;
    while (i < batch.length) {
      const kind = batch[i].kind;
      let j = i + 1;
      if (kind === OpKind.Read || kind === OpKind.Write) while (j < batch.length && batch[j].kind === kind) j++;
      pending.push(kind === OpKind.Tx ? this.runTx(client, batch[i] as TxOp) : this.runOps(client, batch, i, j));
      i = j;
    }
    this.stats.statements += pending.length;
    Promise.all(pending).then(() => {
      record(this.stats.batchUsec, Number(process.hrtime.bigint() - started) / 1000);
      this.busy = false;
      if (this.queue.length > 0) this.dispatch();
    });
  };

  private take(): Op[] {
    const maxOps = this.opts.maxCommands();
    const maxBytes = this.opts.maxBytes();
    let n = 0;
    let bytes = 0;
    while (n < this.queue.length && n < maxOps) {
      bytes += opBytes(this.queue[n]);
      n++;
      if (bytes >= maxBytes) break;
    }
    const batch = n === this.queue.length ? this.queue : this.queue.slice(0, n);
    this.queue = n === this.queue.length ? [] : this.queue.slice(n);
    return batch;
  }

  private runOps(client: pg.Client, batch: Op[], from: number, to: number): Promise<void> {
    const first = batch[from];
    const now = Date.now();
    let query: pg.QueryConfig;
    let done: (rows: unknown[][]) => void;
    if (first.kind === OpKind.Read) {
      const ops = batch.slice(from, to) as ReadOp[];
      const dbs: number[] = [];
      const keys: Buffer[] = [];
      for (const op of ops) for (const k of op.keys) { dbs.push(op.db); keys.push(k); }
      query = { name: kSql.read.name, text: kSql.read.text, values: [int2Array(dbs), byteaArray(keys), int8(now)] };
      done = (rows) => resolveReads(ops, rows, keys.length);
    } else if (first.kind === OpKind.Write) {
      const ops = batch.slice(from, to) as WriteOp[];
      query = { name: kSql.write.name, text: kSql.write.text, values: writeArrays(ops) };
      done = () => { for (const op of ops) op.resolve(kOk); };
    } else if (first.kind === OpKind.Stmt) {
      query = { name: first.stmt.name, text: first.stmt.text, values: first.values };
      done = (rows) => first.resolve(first.map(rows));
    } else {
      return this.runTx(client, first);
    }
    (query as pg.QueryArrayConfig).rowMode = 'array';
    return client.query(query as pg.QueryArrayConfig).then(
      (res) => done(res.rows),
      (e: Error & { code?: string }) => {
        this.stats.errors++;
        // a statement error fails this run only; a lost connection (lost() reconnects) or a server
        // shutting down is "unavailable", whatever the wording Postgres or the socket used
        const reply = isConnectionError(e.code) ? Err.storage(e.message) : new RespError(`ERR PostgreSQL error ${e.code}: ${e.message}`);
        for (let k = from; k < to; k++) batch[k].resolve(reply);
      });
  }

  /**
   * One transaction in the pipeline. A statement error inside aborts it: Postgres then fails the
   * rest with 25P02 and answers COMMIT with a ROLLBACK tag, which we report instead of the
   * replies (nothing is acknowledged that was not committed).
   */
  private runTx(client: pg.Client, tx: TxOp): Promise<void> {
    let watchFailed = false;
    let failure: string | undefined;
    const note = (e: Error & { code?: string }) => {
      if (e.code === 'PRW01') watchFailed = true;
      else failure ??= e.message;
    };
    const steps: Promise<unknown>[] = [client.query('BEGIN').catch(note)];
    if (tx.watch.length > 0) {
      const w = tx.watch;
      steps.push(client.query({
        name: kSql.watchCheck.name, text: kSql.watchCheck.text,
        values: [int2Array(w.map((k) => k.db)), byteaArray(w.map((k) => k.key)),
          int8Array(w.map((k) => (k.version === null ? null : Number(k.version)))), int8(Date.now())],
      }).catch(note));
    }
    for (const op of tx.ops) {
      if (op.kind === OpKind.Tx) { op.resolve(Err.storage('nested transaction')); continue; }
      steps.push(this.runOps(client, [op], 0, 1));
    }
    steps.push(client.query('COMMIT').then((r) => {
      if (r.command === 'ROLLBACK' && !watchFailed) failure ??= 'transaction rolled back';
    }, note));
    this.stats.statements += steps.length - 1;
    return Promise.all(steps).then(() => {
      tx.resolve(watchFailed ? null : failure !== undefined ? new RespError(`ERR transaction failed: ${failure}`) : kOk);
    });
  }

  snapshot(): LaneStats {
    return { ...this.stats, connected: this.client !== undefined };
  }

  resetStats(): void {
    this.stats = emptyLaneStats();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.failAll('server shutting down');
    await this.client?.end().catch(() => undefined);
    this.client = undefined;
  }
}

/**
 * SQLSTATE class 08 (connection exception) and 57P0x (admin shutdown, crash shutdown, cannot
 * connect now), or no SQLSTATE at all (EPIPE, ECONNRESET…: SQLSTATE classes never start with E).
 */
function isConnectionError(code: string | undefined): boolean {
  return code === undefined || code.startsWith('E') || code.startsWith('08') || code.startsWith('57P');
}

function emptyLaneStats(): LaneStats {
  return { batches: 0, ops: 0, statements: 0, errors: 0, reconnects: 0, connected: false, batchSize: newHistogram(), batchUsec: newHistogram() };
}

function resolveReads(ops: ReadOp[], rows: unknown[][], total: number): void {
  const found: Reply[] = new Array(total).fill(null);
  for (const r of rows) {
    const i = (r[0] as number) - 1;
    found[i] = (r[1] as number) === 0 ? (r[2] as Buffer) : wrongTypeOrNull;
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

/** Last write wins per (db, key) within the run; rows sorted by (db, key) so concurrent lanes lock in one order. */
function writeArrays(ops: WriteOp[]): unknown[] {
  const rows = new Map<string, { db: number; key: Buffer; value: Buffer; exp: number | null }>();
  for (const op of ops) {
    for (let i = 0; i < op.kv.length; i += 2) {
      const key = op.kv[i];
      const id = `${op.db}:${key.toString('latin1')}`;
      rows.delete(id);
      rows.set(id, { db: op.db, key, value: op.kv[i + 1], exp: op.exp });
    }
  }
  const sorted = [...rows.values()].sort((a, b) => a.db - b.db || Buffer.compare(a.key, b.key));
  return [
    int2Array(sorted.map((r) => r.db)),
    byteaArray(sorted.map((r) => r.key)),
    byteaArray(sorted.map((r) => r.value)),
    int8Array(sorted.map((r) => r.exp)),
  ];
}
