/**
 * Runs of one kind of statement command that a lane may carry as ONE statement: consecutive ops
 * in a batch (so in arrival order) that `same` accepts; the statement gets `values(ops)` and
 * `resolve` hands each op the reply serial execution would have given it.
 */
import type { Op, StmtOp } from './ops';
import { kPushRun } from './push-run';
import { kSaddRun } from './sadd-run';
import { kHsetRun } from './hset-run';

export interface MergeRun {
  /** this op starts a mergeable run */
  matches(op: Op): op is StmtOp;
  /** b may follow a in the same statement */
  same(a: StmtOp, b: Op): boolean;
  text: string;
  values(ops: StmtOp[]): unknown[];
  resolve(ops: StmtOp[], rows: unknown[][]): void;
}

const kRuns: MergeRun[] = [kPushRun, kSaddRun, kHsetRun];

export function mergeRunOf(op: Op): MergeRun | undefined {
  for (const m of kRuns) if (m.matches(op)) return m;
  return undefined;
}
