/**
 * How SADD batches: consecutive SADDs to one key run as ONE s_add_new() call with the distinct
 * union of their members; Postgres returns the members that were not in the set, and each op is
 * credited, in arrival order, with the new members it names first — what serial execution
 * answers (a member new to the set counts for the first SADD that adds it, 0 for later ones). A
 * SADD alone is s_add(), which returns the count. Why: redis-benchmark's SADD hits one key from
 * every client, one transaction (in `logged` mode one WAL flush) per command before.
 */
import type { Batch } from '../../ops';
import { answerCount, argBytes, creditAdded, oneName, sameKey } from '../collection/batch';
import { kSetSql } from './sql';

/** members distinct (collection/args.ts distinct) */
export interface SaddArgs { db: number; key: Buffer; members: Buffer[] }

const membersOf = (a: SaddArgs): Buffer[] => a.members;

export const kSaddBatch: Batch<SaddArgs> = {
  joins: sameKey,
  statement: (ops) => (ops.length === 1 ? kSetSql.add : kSetSql.addNew),

  /** s_add / s_add_new($1 db, $2 key, $3 members, $4 now) */
  params(ops, now) {
    const a = ops[ops.length - 1].args;
    if (ops.length === 1) return [String(a.db), a.key, a.members, now];
    const member = oneName(ops, membersOf);
    if (member !== null) return [String(a.db), a.key, [member], now];
    const seen = new Set<string>();
    const members: Buffer[] = [];
    for (const op of ops) {
      for (const m of op.args.members) {
        const id = m.toString('latin1');
        if (!seen.has(id)) { seen.add(id); members.push(m); }
      }
    }
    return [String(a.db), a.key, members, now];
  },

  resolve(ops, rows) {
    if (ops.length === 1) answerCount(ops[0], rows);
    else creditAdded(ops, rows, membersOf);
  },

  bytes: (a) => argBytes(a.key, a.members),
};
