/** What a run needs of its lane (lane.ts): send statements into the batch's pipeline, fail ops. */
import type { PgResult } from '../../core/engine/pg-driver/result';
import type { Op } from '../../core/engine/ops';

/** err: the statement's error or its sync group's; res: its rows when neither failed */
export type Done = (err: Error | null, res: PgResult | null) => void;

export interface Pipeline {
  /**
   * Sends one statement as its own sync group (its own implicit transaction, so a failing
   * statement fails only its own run); `done` runs once the Sync answered: Postgres may send a
   * statement's result before its commit, and no reply may leave before the commit of what it
   * acknowledges.
   */
  send(sql: string, values: readonly unknown[], done: Done): void;
  /** A statement failed: each of these ops gets its error; the other runs are unaffected. */
  fail(ops: readonly Op[], e: Error): void;
}
