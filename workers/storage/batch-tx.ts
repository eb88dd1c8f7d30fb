/**
 * A batch as one transaction: BEGIN, every run's statement, COMMIT, one Sync — one commit (and in
 * `logged` mode one WAL flush) for the whole batch instead of one per run. A batch of 256 ZADDs
 * (each a run of its own) committed 256 times.
 *
 *   send(BEGIN) send(run 1) … send(run n) send(COMMIT) sync ──▶ all ok: each run's done, in order
 *                                                          └──▶ any error: nothing committed and
 *                                                               nothing answered; ROLLBACK, and the
 *                                                               lane sends the batch again: whole
 *                                                               after a deadlock, else a run per
 *                                                               sync, one at a time
 *
 * Runs answer only after the COMMIT succeeded (Postgres sends a statement's rows before its
 * commit). A statement that fails aborts the transaction; the batch then runs again with each run
 * in its own transaction, so a failing command still fails alone, and a deadlock between two
 * lanes' batches (40P01) costs a retry of the loser's transaction, never a reply.
 */
import type { NativePgConnection, PgParam } from '../../core/engine/pg-driver/native-conn';
import type { PgResult } from '../../core/engine/pg-driver/result';
import type { Op } from '../../core/engine/ops';
import type { Done, Pipeline } from './pipeline';

const ignore = (): void => undefined;

interface Sent {
  done: Done;
  res: PgResult | null;
}

export class BatchTransaction implements Pipeline {
  private readonly sent: Sent[] = [];
  private error: Error | null = null;

  constructor(private readonly conn: NativePgConnection, private readonly onFail: (ops: readonly Op[], e: Error) => void) {
    conn.send('BEGIN', undefined, this.note);
  }

  send(sql: string, values: readonly unknown[], done: Done): void {
    const s: Sent = { done, res: null };
    this.sent.push(s);
    this.conn.send(sql, values as readonly PgParam[], (err, res) => {
      if (err) this.note(err);
      else s.res = res;
    });
  }

  /** Only a run's done callback calls this, after the commit: a statement error is a retry. */
  fail(ops: readonly Op[], e: Error): void {
    this.onFail(ops, e);
  }

  /** COMMIT and Sync; `committed` answers every run, `retry` is called when nothing committed. */
  commit(committed: () => void, retry: (e: Error) => void): void {
    this.conn.send('COMMIT', undefined, this.note);
    this.conn.sync((err) => {
      if (err) this.note(err);
      if (this.error !== null) {
        // an error skips the rest of the sync group, COMMIT included: the explicit transaction
        // is still open, aborted (25P02 for anything sent next). ROLLBACK ends it; when the
        // COMMIT itself failed there is none left, and ROLLBACK only warns.
        this.conn.send('ROLLBACK', undefined, ignore);
        return retry(this.error);
      }
      for (const s of this.sent) s.done(null, s.res);
      committed();
    });
  }

  get statements(): number {
    return this.sent.length;
  }

  private readonly note = (err: Error | null): void => {
    if (err !== null) this.error ??= err;
  };
}
