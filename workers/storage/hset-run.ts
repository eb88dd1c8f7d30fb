/**
 * Consecutive HSET / HMSET to one key in a batch run as ONE h_set_new() call: each field once,
 * with the value of its last mention (serial execution leaves exactly that), and Postgres returns
 * the fields that were not in the hash; each op is credited, in arrival order, with the new
 * fields it names first. HSETNX (p_nx) is not merged: its outcome depends on the ops before it.
 * A wrong type answers every op alike.
 */
import { kHashSql } from '../../core/engine/commands/hash/sql';
import type { MergeRun } from './merge-run';
import { creditAdded, sameKey } from './key-run';
import { OpKind, type Op, type StmtOp } from './ops';

/** values of an HSET op: [db, key, fields (distinct), values, nx, now] (core/engine/commands/hash/hset.ts) */
function isHset(op: Op): op is StmtOp {
  return op.kind === OpKind.Stmt && op.stmt === kHashSql.set && op.values[4] === 'false';
}

function sameHset(a: StmtOp, b: Op): boolean {
  return isHset(b) && sameKey(a, b);
}

function hsetRunValues(ops: StmtOp[]): unknown[] {
  const last = new Map<string, [Buffer, Buffer]>(); // first mention's place, last mention's value
  for (const op of ops) {
    const fields = op.values[2] as Buffer[];
    const values = op.values[3] as Buffer[];
    for (let i = 0; i < fields.length; i++) {
      const id = fields[i].toString('latin1');
      const seen = last.get(id);
      if (seen) seen[1] = values[i];
      else last.set(id, [fields[i], values[i]]);
    }
  }
  const pairs = [...last.values()];
  const v = ops[ops.length - 1].values;
  return [v[0], v[1], pairs.map((p) => p[0]), pairs.map((p) => p[1]), v[5]];
}

export const kHsetRun: MergeRun = {
  matches: isHset, same: sameHset, text: kHashSql.setNew.text, values: hsetRunValues, resolve: creditAdded,
};
