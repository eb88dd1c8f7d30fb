/**
 * How LPUSH / RPUSH / LPUSHX / RPUSHX batch: consecutive pushes onto one key from one end (and of
 * one X-ness) run as ONE l_push() call with their elements in order — pushing a, then b, then c is
 * pushing a b c — and the replies of serial execution follow from the final length (op i answers
 * total − elements pushed after it). A wrong type, or an X push onto a missing key, answers every
 * op alike, as each alone would. Why: redis-benchmark's LPUSH/RPUSH hit one key from every
 * client; one statement per command meant one transaction (and in `logged` mode one WAL flush) each.
 */
import type { Batch } from '../../ops';
import { answerCount, argBytes, sameKey } from '../collection/batch';
import { kListSql } from './sql';

export interface PushArgs { db: number; key: Buffer; elements: Buffer[]; left: boolean; onlyExisting: boolean }

export const kPushBatch: Batch<PushArgs> = {
  joins: (a, b) => a.left === b.left && a.onlyExisting === b.onlyExisting && sameKey(a, b),
  statement: () => kListSql.push,

  /** l_push($1 db, $2 key, $3 elements, $4 left, $5 only existing, $6 now): every op's elements, in order */
  params(ops, now) {
    const a = ops[0].args;
    let elements = a.elements;
    if (ops.length > 1) {
      elements = [];
      for (const op of ops) for (const e of op.args.elements) elements.push(e);
    }
    // elements as a Buffer[]: the connection encodes it as bytea[]
    return [String(a.db), a.key, elements, a.left ? 'true' : 'false', a.onlyExisting ? 'true' : 'false', now];
  },

  /** one row (status, final length) */
  resolve(ops, rows) {
    const status = rows[0][0] as number;
    const total = Number(rows[0][1]);
    if (ops.length === 1 || status !== 1 || total === 0) {
      for (const op of ops) answerCount(op, rows);
      return;
    }
    let after = 0;
    for (const op of ops) after += op.args.elements.length;
    for (const op of ops) {
      after -= op.args.elements.length;
      op.answer(status, total - after);
    }
  },

  bytes: (a) => argBytes(a.key, a.elements),
};
