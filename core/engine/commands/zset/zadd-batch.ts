/**
 * How plain ZADD batches (no NX, XX, GT, LT or INCR; CH allowed): consecutive ZADDs on one key run
 * as ONE z_add_run() call with each distinct member at the last score the run gives it. Postgres
 * returns what every member held before the run, and the ops are replayed over that in arrival
 * order, so each answers what serial execution would (added, or with CH added + changed) and
 * notes the same count of changes for the `zadd` event. A ZADD alone is z_add(), as before.
 * Why: redis-benchmark's ZADD hits one key from every client; one transaction each passed the
 * key's row lock between lanes (harness ZADD ran at 0.022× redis-server).
 */
import type { Batch, BatchOp } from '../../ops';
import { Noted } from '../../pending-reply';
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { argBytes, oneName, sameKey } from '../collection/batch';
import { int8Reply } from '../exec';
import { f8Array } from './bounds';
import { kZsetSql } from './sql';

/** members[i] gets scores[i], in argument order (a member may repeat: later pairs update it) */
export interface ZaddArgs { db: number; key: Buffer; members: Buffer[]; scores: number[]; ch: boolean }

export const kZaddBatch: Batch<ZaddArgs> = {
  joins: sameKey,
  statement: (ops) => (ops.length === 1 ? kZsetSql.add : kZsetSql.addRun),

  /** z_add($1 db, $2 key, $3 members, $4 scores, $5 flags 0, $6 now) / z_add_run(… $5 now) */
  params(ops, now) {
    const a = ops[0].args;
    if (ops.length === 1) return [String(a.db), a.key, a.members, f8Array(a.scores), '0', now];
    const one = oneName(ops, membersOf);
    if (one !== null) return [String(a.db), a.key, [one], f8Array([ops[ops.length - 1].args.scores[0]]), now];
    const last = new Map<string, number>();
    const members: Buffer[] = [];
    for (const op of ops) {
      const { members: ms, scores } = op.args;
      for (let i = 0; i < ms.length; i++) {
        const id = ms[i].toString('latin1');
        if (!last.has(id)) members.push(ms[i]);
        last.set(id, scores[i]);
      }
    }
    const scores = members.map((m) => last.get(m.toString('latin1'))!);
    return [String(a.db), a.key, members, f8Array(scores), now];
  },

  resolve(ops, rows) {
    const status = rows[0][0] as number;
    if (status === 2) return settleAll(ops, Err.wrongType);
    if (ops.length === 1) {
      const added = Number(int8Reply(rows[0][1]));
      const both = added + Number(int8Reply(rows[0][2]));
      return ops[0].settle(new Noted(ops[0].args.ch ? both : added, both));
    }
    const olds = rows[0][1] as (number | null)[];
    if (oneName(ops, membersOf) !== null) replayOne(ops, olds[0]);
    else replay(ops, olds);
  },

  bytes: (a) => argBytes(a.key, a.members) + 8 * a.scores.length,
};

const membersOf = (a: ZaddArgs): Buffer[] => a.members;

/** replay() for a run whose every op names the same one member (redis-benchmark's ZADD): no strings, no Map */
function replayOne(ops: readonly BatchOp<ZaddArgs>[], old: number | null): void {
  let before = old;
  for (const op of ops) {
    const score = op.args.scores[0] + 0;
    const added = before === null ? 1 : 0;
    const changed = before !== null && before !== score ? 1 : 0;
    before = score;
    op.settle(new Noted(op.args.ch ? added + changed : added, added + changed));
  }
}

/** Each op's reply, serially over the scores the run's distinct members held before it (olds, in params' order). */
function replay(ops: readonly BatchOp<ZaddArgs>[], olds: readonly (number | null)[]): void {
  const held = new Map<string, number | null>();
  let next = 0;
  for (const op of ops) {
    for (const m of op.args.members) {
      const id = m.toString('latin1');
      if (!held.has(id)) held.set(id, olds[next++]);
    }
  }
  for (const op of ops) {
    const { members, scores, ch } = op.args;
    let added = 0;
    let changed = 0;
    for (let i = 0; i < members.length; i++) {
      const id = members[i].toString('latin1');
      const before = held.get(id)!;
      // + 0: -0 is stored as 0 (z_add), so 0 after -0 is no change
      const score = scores[i] + 0;
      if (before === null) added++;
      else if (before !== score) changed++;
      held.set(id, score);
    }
    op.settle(new Noted(ch ? added + changed : added, added + changed));
  }
}

function settleAll(ops: readonly BatchOp<ZaddArgs>[], r: RespError): void {
  for (const op of ops) op.settle(r);
}
