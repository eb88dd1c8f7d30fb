/**
 * One attempt of a script's transaction on its connection, as a Pipeline (./pipeline.ts), so the
 * lane's run code sends a command's statements here unchanged: each statement goes at once, in
 * its own sync group, inside the open transaction (a Sync does not commit inside BEGIN).
 *
 * Round trips: BEGIN goes in one pipeline with the first statement (the snapshot is taken there
 * anyway), the last statement (script_end) in one with COMMIT, and a call that sent nothing
 * (`return 1`, no keys) sends neither: each Sync is a write() on the socket and a ReadyForQuery
 * to read, ~25 µs of server CPU apiece on the 2-core machine (BENCHMARKS.md "Scripts").
 *
 * The first statement error aborts the transaction in Postgres; it is noted here:
 *   40001 serialization failure, 40P01 deadlock → `restart`: roll back, run the script again
 *   anything else (connection lost…)            → `failure`: roll back, the client gets the error
 * Statements after it are not sent (Postgres would refuse them with 25P02): they fail at once, so
 * a script looping on redis.pcall reaches its end quickly and is re-run or answered.
 *
 * markWritten(): the call's first write takes the request's `wrote` statement along in its own
 * pipeline (script_wrote, for SCRIPT KILL on other instances): one more statement, no round trip.
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

  /** BEGIN … until the first statement takes it along */
  private begin: string | undefined;
  /** the request's `wrote` statement, once markWritten() asked for it, until a statement takes it along */
  private wrote: string | undefined;
  private wroteSql: string | undefined;

  constructor(private readonly conn: NativePgConnection, begin: string, wroteSql?: string) {
    this.begin = begin;
    this.wroteSql = wroteSql;
  }

  /** The call is about to write: the `wrote` statement rides with the next statement (once). */
  markWritten(): void {
    if (this.wroteSql === undefined) return;
    this.wrote = this.wroteSql;
    this.wroteSql = undefined;
  }

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
    this.sendBegin();
    if (this.wrote !== undefined) {
      this.conn.send(this.wrote, [], (err) => { if (err) this.note(err); });
      this.wrote = undefined;
    }
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

  /**
   * `last` (if any) and COMMIT in one pipeline, or ROLLBACK after a failure; resolves once
   * Postgres answered. When `last` or COMMIT fails, the rest of the group is skipped and the
   * transaction is left aborted (or ended): a ROLLBACK follows (a warning only when none is open).
   */
  async finish(last?: { sql: string; values: readonly unknown[] }): Promise<void> {
    if (this.begin !== undefined || this.conn.closed) return; // nothing was sent: no transaction
    if (!this.failed) {
      if (last !== undefined) {
        this.statements++;
        this.conn.send(last.sql, last.values as readonly PgParam[], (err) => { if (err) this.note(err); });
      }
      this.conn.send('COMMIT', [], (err) => { if (err) this.note(err); });
      await new Promise<void>((resolve) => this.conn.sync(() => resolve()));
      if (!this.failed || this.conn.closed) return;
    }
    await new Promise<void>((resolve) => {
      this.conn.send('ROLLBACK', [], () => undefined);
      this.conn.sync(() => resolve());
    });
  }

  private sendBegin(): void {
    if (this.begin === undefined) return;
    this.conn.send(this.begin, [], (err) => { if (err) this.note(err); });
    this.begin = undefined;
  }

  private note(e: Error): void {
    if (this.failed) return;
    if (kRestartCodes.has((e as Error & { code?: string }).code ?? '')) this.restart = true;
    else this.failure = e;
  }
}
