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
 */
import type { AtomicRequest, AtomicRun } from '../../core/engine/key-store';
import { NativePgConnection } from '../../core/engine/pg-driver/native-conn';
import type { RespError } from '../../core/engine/reply';
import type { ConnectionOptions } from './lane-connection';
import { errorReply, storageError } from './replies';
import { ScriptStore } from './script-store';
import { ScriptTx } from './script-tx';

/** a transaction that keeps failing to serialize ends with an error after this many attempts */
const kMaxAttempts = 1000;

interface Waiter { resolve(c: NativePgConnection): void; reject(e: Error): void }

export interface ScriptPoolStats {
  /** calls committed (or answered an error) */
  calls: number;
  /** the script ran and was run again */
  retries: number;
  /** the transaction started over before the script ran (its key locks) */
  lockRestarts: number;
  connections: number;
}

export class ScriptPool {
  private idle: NativePgConnection[] = [];
  private open = 0;
  private waiters: Waiter[] = [];
  private closed = false;
  readonly stats: ScriptPoolStats = { calls: 0, retries: 0, lockRestarts: 0, connections: 0 };

  constructor(private readonly max: number, private readonly opts: ConnectionOptions) {}

  async atomic<T>(req: AtomicRequest, body: (run: AtomicRun) => Promise<T>): Promise<T | RespError> {
    let conn: NativePgConnection;
    try {
      conn = await this.acquire();
    } catch (e) {
      return storageError((e as Error).message);
    }
    try {
      return await this.attempts(conn, req, body);
    } finally {
      this.stats.calls++;
      this.release(conn);
    }
  }

  private async attempts<T>(conn: NativePgConnection, req: AtomicRequest, body: (run: AtomicRun) => Promise<T>): Promise<T | RespError> {
    for (let attempt = 0; ; attempt++) {
      const tx = new ScriptTx(conn, 'BEGIN ISOLATION LEVEL REPEATABLE READ', req.wrote?.text);
      const begun = req.begin ? await tx.rows(req.begin.stmt.text, req.begin.values) : [];
      const ran = !tx.failed;
      let value: T | undefined;
      if (ran) {
        try {
          value = await body({ store: new ScriptStore(tx), begun, attempt, markWritten: () => tx.markWritten() });
        } catch (e) {
          tx.failure ??= e as Error;
        }
      }
      const end = req.end !== undefined && (req.end.needed?.(begun) ?? true) ? { sql: req.end.stmt.text, values: req.end.values } : undefined;
      await tx.finish(end);
      if (tx.restart && attempt + 1 < kMaxAttempts) {
        if (ran) this.stats.retries++;
        else this.stats.lockRestarts++;
        // contention: after a few immediate retries, wait a little, randomly, so waiters spread out
        if (attempt >= 3) await new Promise((r) => setTimeout(r, Math.random() * Math.min(2 ** attempt, 50)));
        continue;
      }
      if (tx.failed) return errorReply(tx.failure ?? new Error(`could not serialize the script's transaction in ${kMaxAttempts} attempts`));
      return value as T;
    }
  }

  private acquire(): Promise<NativePgConnection> {
    if (this.closed) return Promise.reject(new Error('server shutting down'));
    let c: NativePgConnection | undefined;
    // one that died while idle (Postgres restarted) is dropped here
    while ((c = this.idle.pop()) !== undefined && c.closed) this.open--;
    this.stats.connections = this.open;
    if (c !== undefined) return Promise.resolve(c);
    if (this.open < this.max) return this.connect();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private connect(): Promise<NativePgConnection> {
    this.open++;
    this.stats.connections = this.open;
    return NativePgConnection.connect(this.opts.url, {
      libpq: { options: this.opts.startupOptions, application_name: 'postresp-script' },
    }).catch((e: Error) => {
      this.open--;
      this.stats.connections = this.open;
      throw e;
    });
  }

  private release(c: NativePgConnection): void {
    if (c.closed || this.closed) {
      this.open--;
      this.stats.connections = this.open;
      if (!c.closed) void c.close();
      const w = this.waiters.shift();
      if (w !== undefined) this.connect().then(w.resolve, w.reject);
      return;
    }
    const w = this.waiters.shift();
    if (w !== undefined) w.resolve(c);
    else this.idle.push(c);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.reject(new Error('server shutting down'));
    const idle = this.idle.splice(0);
    this.open -= idle.length;
    await Promise.all(idle.map((c) => c.close()));
  }
}
