/**
 * One attempt of a script's transaction on its connection, as a Pipeline (./pipeline.ts), so the
 * lane's run code sends a command's statements here unchanged: each statement goes at once, in
 * its own sync group, inside the open transaction (a Sync does not commit inside BEGIN).
 *
 * The first statement error aborts the transaction in Postgres; it is noted here:
 *   40001 serialization failure, 40P01 deadlock → `restart`: roll back, run the script again
 *   anything else (connection lost…)            → `failure`: roll back, the client gets the error
 * Statements after it are not sent (Postgres would refuse them with 25P02): they fail at once, so
 * a script looping on redis.pcall reaches its end quickly and is re-run or answered.
 */
import type { NativePgConnection, PgParam } from '../../core/engine/pg-driver/native-conn';
import { PgAbortedError } from '../../core/engine/pg-driver/errors';
import type { Rows } from '../../core/engine/key-store';
import type { Op } from '../../core/engine/ops';
import { typedRows } from '../../core/engine/pg-driver/typed-rows';
import type { Done, Pipeline } from './pipeline';
import { errorReply } from './replies';

const kRestartCodes = new Set(['40001', '40P01']);

export class ScriptTx implements Pipeline {
  restart = false;
  failure: Error | undefined = undefined;
  statements = 0;

  constructor(private readonly conn: NativePgConnection) {}

  get failed(): boolean {
    return this.restart || this.failure !== undefined;
  }

  send(sql: string, values: readonly unknown[], done: Done): void {
    if (this.failed || this.conn.closed) {
      const e = this.conn.closed && !this.failed ? new Error('PostgreSQL connection closed') : new PgAbortedError(this.failure);
      this.note(e);
      queueMicrotask(() => done(e, null));
      return;
    }
    this.statements++;
    let stmtErr: Error | null = null;
    let stmtRes: Parameters<Done>[1] = null;
    this.conn.send(sql, values as readonly PgParam[], (err, res) => {
      stmtErr = err;
      stmtRes = res;
    });
    this.conn.sync((syncErr) => {
      const e = stmtErr ?? syncErr;
      if (e) this.note(e);
      done(e, e ? null : stmtRes);
    });
  }

  fail(ops: readonly Op[], e: Error): void {
    const reply = errorReply(e);
    for (const op of ops) op.settle(reply);
  }

  /** A statement of the transaction's own (begin, end); [] when it failed (noted). */
  rows(sql: string, values: readonly unknown[]): Promise<Rows> {
    return new Promise((resolve) => this.send(sql, values, (err, res) => resolve(err || !res ? [] : typedRows(res))));
  }

  /** COMMIT, or ROLLBACK after a failure; resolves once Postgres answered. */
  finish(): Promise<void> {
    const failed = this.failed;
    return new Promise((resolve) => {
      if (this.conn.closed) return resolve();
      this.conn.send(failed ? 'ROLLBACK' : 'COMMIT', [], (err) => { if (err && !failed) this.note(err); });
      this.conn.sync(() => resolve());
    });
  }

  private note(e: Error): void {
    if (this.failed) return;
    if (kRestartCodes.has((e as Error & { code?: string }).code ?? '')) this.restart = true;
    else this.failure = e;
  }
}
