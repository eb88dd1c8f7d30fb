/**
 * Consecutive SADDs to one key in a batch run as ONE s_add_new() call with the distinct union of
 * their members; Postgres returns the members that were not in the set, and each op is credited,
 * in arrival order, with the new members it names first — what serial execution answers (a
 * member new to the set counts for the first SADD that adds it, 0 for later ones). A wrong type
 * answers every op alike. Why: redis-benchmark's SADD hits one key from every client, one
 * transaction (in `logged` mode one WAL flush) per command before.
 */
import { kSetSql } from '../../core/engine/commands/set/sql';
import type { MergeRun } from './merge-run';
import { creditAdded, sameKey } from './key-run';
import { OpKind, type Op, type StmtOp } from './ops';

/** values of a SADD op: [db, key, members (distinct), now] (core/engine/commands/set/sadd.ts) */
function isSadd(op: Op): op is StmtOp {
  return op.kind === OpKind.Stmt && op.stmt === kSetSql.add;
}

function sameSadd(a: StmtOp, b: Op): boolean {
  return isSadd(b) && sameKey(a, b);
}

function saddRunValues(ops: StmtOp[]): unknown[] {
  const seen = new Set<string>();
  const members: Buffer[] = [];
  for (const op of ops) {
    for (const m of op.values[2] as Buffer[]) {
      const id = m.toString('latin1');
      if (!seen.has(id)) { seen.add(id); members.push(m); }
    }
  }
  const v = ops[ops.length - 1].values;
  return [v[0], v[1], members, v[3]];
}

export const kSaddRun: MergeRun = {
  matches: isSadd, same: sameSadd, text: kSetSql.addNew.text, values: saddRunValues, resolve: creditAdded,
};
