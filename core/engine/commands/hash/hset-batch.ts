/**
 * How HSET / HMSET batch: consecutive ones to one key run as ONE h_set_new() call — each field
 * once, with the value of its last mention (serial execution leaves exactly that) — and Postgres
 * returns the fields that were not in the hash; each op is credited, in arrival order, with the
 * new fields it names first. Alone, an HSET is h_set(), which returns the count. HSETNX is not a
 * BatchOp (its outcome depends on the ops before it): it splits a run. A wrong type answers every
 * op alike.
 */
import type { Batch } from '../../ops';
import { answerCount, argBytes, creditAdded, oneName, sameKey } from '../collection/batch';
import { kHashSql } from './sql';

/** fields distinct, each with its last value (hset.ts) */
export interface HsetArgs { db: number; key: Buffer; fields: Buffer[]; values: Buffer[] }

const fieldsOf = (a: HsetArgs): Buffer[] => a.fields;

export const kHsetBatch: Batch<HsetArgs> = {
  joins: sameKey,
  statement: (ops) => (ops.length === 1 ? kHashSql.set : kHashSql.setNew),

  /** h_set($1 db, $2 key, $3 fields, $4 values, $5 nx, $6 now) / h_set_new($1…$4, $5 now) */
  params(ops, now) {
    const a = ops[ops.length - 1].args;
    if (ops.length === 1) return [String(a.db), a.key, a.fields, a.values, 'false', now];
    const field = oneName(ops, fieldsOf);
    if (field !== null) return [String(a.db), a.key, [field], [a.values[0]], now];
    const last = new Map<string, [Buffer, Buffer]>(); // first mention's place, last mention's value
    for (const op of ops) {
      const { fields, values } = op.args;
      for (let i = 0; i < fields.length; i++) {
        const id = fields[i].toString('latin1');
        const seen = last.get(id);
        if (seen) seen[1] = values[i];
        else last.set(id, [fields[i], values[i]]);
      }
    }
    const pairs = [...last.values()];
    return [String(a.db), a.key, pairs.map((p) => p[0]), pairs.map((p) => p[1]), now];
  },

  resolve(ops, rows) {
    if (ops.length === 1) answerCount(ops[0], rows);
    else creditAdded(ops, rows, fieldsOf);
  },

  bytes: (a) => argBytes(a.key, a.fields) + argBytes(a.key, a.values) - a.key.length,
};
