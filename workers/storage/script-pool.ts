/**
 * Connections kept for EVAL/FCALL transactions, per worker (`--script-connections`, opened on
 * first use), apart from the lanes: a script holds its connection from BEGIN to COMMIT, and on a
 * lane that would stall every pipelined client behind it. More concurrent calls than connections
 * wait in FIFO order.
 *
 *   acquire ─▶ BEGIN ISOLATION LEVEL REPEATABLE READ + begin stmt ─▶ body (the script) ─▶ end stmt + COMMIT
 *                  ▲                                                                                   │
 *                  └──── 40001 / 40P01 anywhere: ROLLBACK, count a retry, same connection ◀────────────┘
 *
 * (`+`: one pipeline, one round trip; ./script-tx.ts)
 *
 * A restart before the body ran (the begin statement waited on a declared key's row lock, and the
 * row changed after this transaction's snapshot) costs a round trip; one after it re-runs the
 * script. Both are counted (INFO stats postresp_script_*).
 *
 * Calls queue in FIFO order; a connection that frees up takes the first queued call and, when
 * it may share (AtomicRequest.share), the calls of its kind queued right behind it, up to
 * kMaxBatch, as one transaction (./script-batch.ts). A call alone (nobody else waited) runs as
 * before: batches form only when calls outnumber the connections, like a group commit.
 *
 * A client's calls (AtomicRequest.chain) run one at a time and in order: while one runs, the
 * client's later calls wait in the queue (other clients' calls pass them), and the next batch on
 * a connection takes them together. A pipelining client (a BullMQ Worker's moveToFinished and
 * extendLock on one connection) has its calls queued back to back (workers/script-join.ts), and
 * the queue is served after the turn of the event loop that queued them, so calls read in one
 * chunk share one transaction: one batch's latency instead of one call's each.
 */
import type { AtomicRequest, AtomicRun } from '../../core/engine/key-store';
import { NativePgConnection } from '../../core/engine/pg-driver/native-conn';
import type { RespError } from '../../core/engine/reply';
import type { ConnectionOptions } from './lane-connection';
import { errorReply, storageError } from './replies';
import { ScriptStore } from './script-store';
import { ScriptTx } from './script-tx';
import { runBatchOnce, type QueuedCall } from './script-batch';
import { HotKeys } from './script-hold';
import { BusyRefusal } from './script-busy';
import { traceQueued, traceRan, tracing } from './script-trace';

/** a transaction that keeps failing to serialize ends with an error after this many attempts */
const kMaxAttempts = 1000;

/** calls at most in one transaction: each call's reply waits for the batch's COMMIT, and its
 * locks are held that long (16 × ~1 ms of GET + SET + EXPIRE) */
const kMaxBatch = 16;

export interface ScriptPoolStats {
  /** calls committed (or answered an error) */
  calls: number;
  /** the script ran and was run again */
  retries: number;
  /** the transaction started over before the script ran (its key locks) */
  lockRestarts: number;
  connections: number;
  /** calls that shared a transaction with others, and those transactions */
  batchedCalls: number;
  batches: number;
}

export class ScriptPool {
  private idle: NativePgConnection[] = [];
  private open = 0;
  private connecting = 0;
  private queue: QueuedCall[] = [];
  private closed = false;
  /** clients (AtomicRequest.chain) with a call on a connection: their queued calls wait */
  private readonly running = new Set<object>();
  private pumpSoon = false;
  /** declared keys that made calls restart lately: calls on them hold their keys before the snapshot */
  private readonly hot = new HotKeys();
  readonly stats: ScriptPoolStats = { calls: 0, retries: 0, lockRestarts: 0, connections: 0, batchedCalls: 0, batches: 0 };
  /** waiting calls answer BUSY behind a call past busy-reply-threshold (./script-busy.ts) */
  private readonly busy = new BusyRefusal(this.queue, () => this.open >= this.max && this.connecting === 0 && this.idle.length === 0);

  constructor(private readonly max: number, private readonly opts: ConnectionOptions,
    private readonly batchMs: () => number = () => 0) {}

  atomic<T>(req: AtomicRequest, body: (run: AtomicRun) => Promise<T>): Promise<T | RespError> {
    if (this.closed) return Promise.resolve(storageError('server shutting down'));
    return new Promise((resolve) => {
      const q: QueuedCall = { req, body, resolve: resolve as (v: unknown) => void };
      if (tracing) traceQueued(q);
      this.queue.push(q);
      req.queued?.();
      if (!this.pumpSoon) setImmediate(this.pumpNow);
      this.pumpSoon = true;
    });
  }

  /** after the turn that queued calls: a client's calls read from one chunk are all queued by then */
  private readonly pumpNow = (): void => {
    this.pumpSoon = false;
    this.pump();
    if (this.queue.length > 0) this.busy.waiting();
  };

  /** the call waits for its client's call on a connection */
  private waits(q: QueuedCall): boolean {
    return q.req.chain !== undefined && this.running.has(q.req.chain);
  }

  private runnable(): number {
    let n = 0;
    for (const q of this.queue) if (!this.waits(q)) n++;
    return n;
  }

  /** Gives queued calls to idle connections, and opens connections (up to max) for the rest. */
  private pump(): void {
    for (let ready = this.runnable(); ready > 0; ready = this.runnable()) {
      let c: NativePgConnection | undefined;
      // one that died while idle (Postgres restarted) is dropped here
      while ((c = this.idle.pop()) !== undefined && c.closed) this.open--;
      this.stats.connections = this.open;
      if (c !== undefined) {
        void this.serve(c);
        continue;
      }
      if (this.open >= this.max || this.connecting >= ready) return;
      this.connect();
    }
  }

  private connect(): void {
    this.open++;
    this.connecting++;
    this.stats.connections = this.open;
    NativePgConnection.connect(this.opts.url, {
      libpq: { options: this.opts.startupOptions, application_name: 'postresp-script' },
    }).then((c) => {
      this.connecting--;
      void this.serve(c);
    }, (e: Error) => {
      this.connecting--;
      this.open--;
      this.stats.connections = this.open;
      // the call that would have had it gets the error (Postgres down: each waiting call tries)
      this.queue.shift()?.resolve(storageError(e.message));
      this.pump();
    });
  }

  /** Runs batches from the queue on c until the queue is empty, then parks c. */
  private async serve(c: NativePgConnection): Promise<void> {
    while (!c.closed && !this.closed) {
      const batch = this.take();
      if (batch.length === 0) break;
      try {
        if (batch.length === 1) await this.alone(c, batch[0]);
        else {
          const over = this.busy.behind(batch);
          await this.batch(c, batch).finally(over);
        }
      } finally {
        for (const q of batch) if (q.req.chain !== undefined) this.running.delete(q.req.chain);
      }
      // calls that waited for these clients may go to other idle connections
      if (this.idle.length > 0) this.pump();
    }
    this.release(c);
  }

  /** One call in a transaction of its own. */
  private async alone(conn: NativePgConnection, call: QueuedCall): Promise<void> {
    let out: unknown;
    const start = tracing ? Date.now() : 0;
    const redone = this.stats.retries + this.stats.lockRestarts;
    try {
      out = await this.attempts(conn, call.req, call.body);
    } catch (e) {
      out = errorReply(e as Error);
    }
    this.stats.calls++;
    if (tracing) traceRan([call], 1, start, 1 + this.stats.retries + this.stats.lockRestarts - redone);
    call.resolve(out);
  }

  /**
   * The first queued call whose client has none running, and the calls of its kind that may share
   * its transaction behind it (passing over those that wait for their client's running call).
   */
  private take(): QueuedCall[] {
    const q = this.queue;
    let i = 0;
    while (i < q.length && this.waits(q[i])) i++;
    if (i === q.length) return [];
    // --script-batch-ms 0: no shared transactions (a client's calls still go back to back)
    const first = this.batchMs() > 0 ? q[i].req.share : undefined;
    let end = i + 1;
    const taken = [q[i]];
    if (first !== undefined) {
      for (; end < q.length && taken.length < kMaxBatch; end++) {
        if (this.waits(q[end])) continue;
        if (q[end].req.share?.kind !== first.kind) break;
        taken.push(q[end]);
      }
    }
    if (taken.length === end - i) q.splice(i, end - i);
    else {
      // in place: BusyRefusal (./script-busy.ts) holds this array
      const out = new Set(taken);
      let kept = 0;
      for (const x of q) if (!out.has(x)) q[kept++] = x;
      q.length = kept;
    }
    for (const t of taken) if (t.req.chain !== undefined) this.running.add(t.req.chain);
    return taken;
  }

  private async batch(conn: NativePgConnection, calls: QueuedCall[]): Promise<void> {
    const start = tracing ? Date.now() : 0;
    for (let attempt = 0; ; attempt++) {
      const out = await runBatchOnce(conn, calls, attempt, this.batchMs(), this.hot.holdValues(calls.map((c) => c.req.share)));
      if (out.kind === 'restart' && attempt + 1 < kMaxAttempts) {
        if (out.ran > 0) this.stats.retries += out.ran;
        if (out.at !== undefined && calls.length > 1) this.splitAt(calls, out.at);
        else if (out.ran === 0) {
          this.stats.lockRestarts += calls.length;
          this.hot.add(calls.map((c) => c.req.share));
        }
        if (attempt >= 3) await new Promise((r) => setTimeout(r, Math.random() * Math.min(2 ** attempt, 50)));
        continue;
      }
      if (out.kind !== 'committed') {
        // not a serialization failure: each call again alone, so only the one that meets the error answers it
        for (const call of calls) await this.alone(conn, call);
        return;
      }
      this.stats.batches++;
      this.stats.batchedCalls += out.ran;
      this.stats.calls += out.ran;
      if (tracing) traceRan(calls, out.ran, start, attempt + 1);
      for (let i = 0; i < out.ran; i++) calls[i].resolve(out.values[i]);
      // a KILL ended the batch early: the rest go first in the queue
      if (out.ran < calls.length) this.queue.unshift(...calls.slice(out.ran));
      return;
    }
  }

  /**
   * A batch restarted because call `at` met a serialization failure or a deadlock (a key it touched
   * changed after the batch's snapshot): the calls before it run again as the batch, and it and
   * the calls after it go back to the front of the queue (call 0 stays, alone: its snapshot is as
   * fresh as a call's own). Re-running the whole batch kept giving the conflicting call the
   * snapshot of the batch's start, as old as the calls before it took to run, while its
   * neighbours, of other clients too, waited with it: under BullMQ a getCounts behind a Worker's
   * moveToFinished in one batch restarted 41 times in 20 s and the Worker's job locks expired
   * (docs/scripting.md "BullMQ's job locks"). `calls` is cut in place: it is what serve() lets go
   * of when the batch ends (running), and the calls put back wait in the queue until then only
   * when their client still has a call in it.
   */
  private splitAt(calls: QueuedCall[], at: number): void {
    const keep = Math.max(at, 1);
    const back = calls.splice(keep);
    const mine = new Set(calls.map((c) => c.req.chain));
    for (const c of back) if (c.req.chain !== undefined && !mine.has(c.req.chain)) this.running.delete(c.req.chain);
    this.queue.unshift(...back);
    if (this.idle.length > 0 || this.open < this.max) this.pump();
  }

  private async attempts<T>(conn: NativePgConnection, req: AtomicRequest, body: (run: AtomicRun) => Promise<T>): Promise<T | RespError> {
    for (let attempt = 0; ; attempt++) {
      const tx = new ScriptTx(conn, 'BEGIN ISOLATION LEVEL REPEATABLE READ', req.wrote?.text, this.hot.holdValues([req.share]));
      const begun = req.begin ? await tx.rows(req.begin.stmt.text, req.begin.values) : [];
      const ran = !tx.failed;
      let value: T | undefined;
      if (ran) {
        try {
          value = await body({ store: new ScriptStore(tx), begun, attempt, markWritten: () => tx.markWritten(),
            ahead: (stmt, values, done) => tx.ahead(stmt.text, values, done), endBatch: () => undefined });
        } catch (e) {
          tx.failure ??= e as Error;
        }
      }
      const end = req.end !== undefined && (req.end.needed?.(begun) ?? true) ? { sql: req.end.stmt.text, values: req.end.values } : undefined;
      await tx.finish(end);
      if (tx.restart && attempt + 1 < kMaxAttempts) {
        if (ran) this.stats.retries++;
        else {
          this.stats.lockRestarts++;
          this.hot.add([req.share]);
        }
        // contention: after a few immediate retries, wait a little, randomly, so waiters spread out
        if (attempt >= 3) await new Promise((r) => setTimeout(r, Math.random() * Math.min(2 ** attempt, 50)));
        continue;
      }
      if (tx.failed) return errorReply(tx.failure ?? new Error(`could not serialize the script's transaction in ${kMaxAttempts} attempts`));
      return value as T;
    }
  }

  private release(c: NativePgConnection): void {
    if (c.closed || this.closed) {
      this.open--;
      this.stats.connections = this.open;
      if (!c.closed) void c.close();
      if (!this.closed) this.pump();
      return;
    }
    this.idle.push(c);
    this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.busy.close();
    for (const q of this.queue.splice(0)) q.resolve(storageError('server shutting down'));
    const idle = this.idle.splice(0);
    this.open -= idle.length;
    await Promise.all(idle.map((c) => c.close()));
  }
}
