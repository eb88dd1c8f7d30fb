/**
 * Consecutive LPUSH / RPUSH (or LPUSHX / RPUSHX) of one key in a batch run as ONE l_push() call
 * with their elements in order: pushing a, then b, then c is pushing a b c, and the replies of
 * serial execution follow from the final length (op i answers total − elements pushed after it).
 * A wrong type, or LPUSHX on a missing key, answers every op alike, as each alone would.
 * Why: redis-benchmark's LPUSH/RPUSH hit one key from every client; one statement per command
 * meant one transaction (and in `logged` mode one WAL flush) each.
 */
import { kListSql } from '../../core/engine/commands/list/sql';
import type { Reply } from '../../core/engine/reply';
import type { MergeRun } from './merge-run';
import { sameKey } from './key-run';
import { OpKind, type Op, type StmtOp } from './ops';

/** values of a push op: [db, key, elements, left, onlyExisting, now] (core/engine/commands/list/lpush.ts) */
function isPush(op: Op): op is StmtOp {
  return op.kind === OpKind.Stmt && op.stmt === kListSql.push;
}

/** same db, key, end and X-ness: b may join a's run */
function samePush(a: StmtOp, b: Op): boolean {
  return isPush(b) && a.values[3] === b.values[3] && a.values[4] === b.values[4] && sameKey(a, b);
}

/** the parameters of the one call: every op's elements, in order */
function pushRunValues(ops: StmtOp[]): unknown[] {
  const elements: Buffer[] = [];
  for (const op of ops) for (const e of op.values[2] as Buffer[]) elements.push(e);
  const v = ops[ops.length - 1].values;
  return [v[0], v[1], elements, v[3], v[4], v[5]];
}

/** rows of l_push: one row (status, final length) */
function resolvePushRun(ops: StmtOp[], rows: unknown[][]): void {
  const status = rows[0][0];
  const total = Number(rows[0][1]);
  if (status !== 1 || total === 0) {
    for (const op of ops) op.resolve(op.map(rows));
    return;
  }
  let after = 0;
  const replies: Reply[] = new Array(ops.length);
  for (let k = ops.length - 1; k >= 0; k--) {
    replies[k] = ops[k].map([[status, total - after]]);
    after += (ops[k].values[2] as Buffer[]).length;
  }
  for (let k = 0; k < ops.length; k++) ops[k].resolve(replies[k]);
}

export const kPushRun: MergeRun = {
  matches: isPush, same: samePush, text: kListSql.push.text, values: pushRunValues, resolve: resolvePushRun,
};
