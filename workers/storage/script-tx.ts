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
 * ahead(): a statement that goes in the next statement's sync group, before it (a script's lock of
 * the keys a command touches without having declared them): one Sync and ReadyForQuery fewer than
 * a statement of its own. When it fails, Postgres skips the rest of the group (noted as above).
 *
 * hold (./script-hold.ts): the declared keys' advisory locks, in a sync group of their own before
 * BEGIN (so before the snapshot), given back in one right after COMMIT / ROLLBACK.
 *
 * markWritten(): the call's first write takes the request's `wrote` statement along in its own
 * pipeline (script_wrote, for SCRIPT KILL on other instances): one more statement, no round trip.
 *
 * In a batch (./script-batch.ts) the marker is session-level (script_call_wrote) and each call
 * gives it back when the next one starts (callStart): the unlock rides with that call's first
 * statement, or goes alone after kUnlockMs if the call has sent none by then (a runaway script
 * must show as killable to other instances), or with COMMIT. After a rollback a marker still held
 * is given back in a round trip of its own (failures only).
 */
import type { NativePgConnection, PgParam } from '../../core/engine/pg-driver/native-conn';
import { PgAbortedError } from '../../core/engine/pg-driver/errors';
import type { Rows } from '../../core/engine/key-store';
import type { Op } from '../../core/engine/ops';
import { typedRows } from '../../core/engine/pg-driver/typed-rows';
import type { Done, Pipeline } from './pipeline';
import { errorReply } from './replies';
import { kHoldSql } from './script-hold';

const kRestartCodes = new Set(['40001', '40P01']);
/** a batched call that has sent no statement this long after it started gives back the previous
 * call's "written" marker on its own (a script computing before its first redis.call) */
const kUnlockMs = 2;

export class ScriptTx implements Pipeline {
  restart = false;
  failure: Error | undefined = undefined;
  statements = 0;

  /** BEGIN … until the first statement takes it along */
  private begin: string | undefined;
  /** the request's `wrote` statement, once markWritten() asked for it, until a statement takes it along */
  private wrote: string | undefined;
  private wroteSql: string | undefined;
  /** statements waiting to go ahead of the next one, in its sync group */
  private aheadQ: { sql: string; values: readonly unknown[]; done: (rows: Rows | null) => void }[] = [];

  /** batches: the session-level marker's unlock statement; whether the marker is held, and
   * whether the call now running should give it back */
  private unwroteSql: string | undefined;
  private markerHeld = false;
  private unlockDue = false;
  private unlockTimer: NodeJS.Timeout | undefined;

  /** the hold statement's values while its locks are (about to be) held */
  private held: unknown[] | undefined;

  constructor(private readonly conn: NativePgConnection, begin: string, wroteSql?: string, private readonly hold?: unknown[]) {
    this.begin = begin;
    this.wroteSql = wroteSql;
  }

  /** A batch's next call starts: its first write takes `wrote` (session-level), given back by `unwrote`. */
  callStart(wrote: string, unwrote: string): void {
    this.wroteSql = wrote;
    this.wrote = undefined;
    this.unwroteSql = unwrote;
    if (!this.markerHeld) return;
    this.unlockDue = true;
    this.unlockTimer ??= setTimeout(() => {
      this.unlockTimer = undefined;
      if (!this.unlockDue || this.failed || this.conn.closed || this.begin !== undefined) return;
      this.sendUnlock();
      this.conn.sync(() => undefined);
    }, kUnlockMs);
    this.unlockTimer.unref();
  }

  private unlockSent = false;

  private sendUnlock(): void {
    this.unlockDue = false;
    this.unlockSent = true;
    this.conn.send(this.unwroteSql as string, [], (err) => {
      this.unlockSent = false;
      if (err) this.note(err);
      else this.markerHeld = false;
    });
  }

  /** sql goes with the next statement, ahead of it; dropped unsent if none follows (nothing read) */
  ahead(sql: string, values: readonly unknown[], done: (rows: Rows | null) => void): void {
    this.aheadQ.push({ sql, values, done });
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
    if (this.unlockDue) this.sendUnlock();
    if (this.wrote !== undefined) {
      this.conn.send(this.wrote, [], (err) => {
        if (err) this.note(err);
        else if (this.unwroteSql !== undefined) this.markerHeld = true;
      });
      this.wrote = undefined;
    }
    if (this.aheadQ.length > 0) {
      for (const a of this.aheadQ) {
        this.conn.send(a.sql, a.values as readonly PgParam[], (err, res) => {
          if (err) this.note(err);
          a.done(err || !res ? null : typedRows(res));
        });
      }
      this.aheadQ.length = 0;
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
    if (this.unlockTimer !== undefined) clearTimeout(this.unlockTimer);
    this.unlockTimer = undefined;
    if (this.begin !== undefined || this.conn.closed) return; // nothing was sent: no transaction
    await this.end(last);
    if (this.markerHeld && !this.conn.closed) {
      // a rollback, or an unlock that failed with the transaction: the session-level marker stays otherwise
      await new Promise<void>((resolve) => {
        this.conn.send(this.unwroteSql as string, [], (err) => { if (!err) this.markerHeld = false; });
        this.conn.sync(() => resolve());
      });
    }
  }

  private async end(last?: { sql: string; values: readonly unknown[] }): Promise<void> {
    if (!this.failed) {
      if (this.markerHeld && !this.unlockSent) this.sendUnlock();
      if (last !== undefined) {
        this.statements++;
        this.conn.send(last.sql, last.values as readonly PgParam[], (err) => { if (err) this.note(err); });
      }
      this.conn.send('COMMIT', [], (err) => { if (err) this.note(err); });
      const committed = new Promise<void>((resolve) => this.conn.sync(() => resolve()));
      this.unhold();
      await committed;
      if (!this.failed || this.conn.closed) return;
    }
    await new Promise<void>((resolve) => {
      this.conn.send('ROLLBACK', [], () => undefined);
      this.conn.sync(() => resolve());
      this.unhold();
    });
  }

  /** the hold's locks go, in a sync group of their own right behind COMMIT / ROLLBACK (not awaited) */
  private unhold(): void {
    if (this.held === undefined || this.conn.closed) return;
    this.conn.send(kHoldSql.unlock, this.held as readonly PgParam[], () => undefined);
    this.conn.sync(() => undefined);
    this.held = undefined;
  }

  private sendBegin(): void {
    if (this.begin === undefined) return;
    if (this.hold !== undefined) {
      // outside the transaction: its snapshot is taken by the statement after BEGIN, once these are held
      this.held = this.hold;
      this.conn.send(kHoldSql.lock, this.hold as readonly PgParam[], (err) => { if (err) this.note(err); });
      this.conn.sync(() => undefined);
    }
    this.conn.send(this.begin, [], (err) => { if (err) this.note(err); });
    this.begin = undefined;
  }

  private note(e: Error): void {
    if (this.failed) return;
    if (kRestartCodes.has((e as Error & { code?: string }).code ?? '')) this.restart = true;
    else this.failure = e;
  }
}
