/**
 * Shared by the merged runs of statement commands on one key (merge-run.ts), whose values start
 * [db, key, names…]: pushes, SADD, HSET.
 */
import type { StmtOp } from './ops';

/** the same db and key */
export function sameKey(a: StmtOp, b: StmtOp): boolean {
  return a.values[0] === b.values[0] && (a.values[1] as Buffer).equals(b.values[1] as Buffer);
}

/**
 * rows (status, name) of a function that returns each name it added (s_add_new, h_set_new), or
 * one (2, NULL) for a wrong type. Each op, in arrival order, is credited with the added names it
 * mentions first (values[2]) — what it would have answered run alone after the ops before it.
 */
export function creditAdded(ops: StmtOp[], rows: unknown[][]): void {
  if (rows.length > 0 && rows[0][0] === 2) {
    for (const op of ops) op.resolve(op.map([[2, null]]));
    return;
  }
  const added = new Set<string>();
  for (const r of rows) added.add((r[1] as Buffer).toString('latin1'));
  for (const op of ops) {
    let n = 0;
    for (const name of op.values[2] as Buffer[]) if (added.delete(name.toString('latin1'))) n++;
    op.resolve(op.map([[1, n]]));
  }
}
