/**
 * What the collection families' batches (ops.ts `Batch`) share: their ops name one key and merge
 * only with ops on that key; SADD and HSET runs credit each op with the names it added.
 */
import type { Rows } from '../../key-store';
import type { BatchOp } from '../../ops';

/** Args of a command on one key */
export interface KeyArgs { db: number; key: Buffer }

/**
 * Called for every op a run joins (runs.ts): a short key is compared in JS, since Buffer.equals'
 * call into C++ was 1.5–3% of a worker's CPU profile in LPUSH/LPOP runs (50 clients, one key).
 */
export function sameKey(a: KeyArgs, b: KeyArgs): boolean {
  if (a.db !== b.db) return false;
  const x = a.key;
  const y = b.key;
  const n = x.length;
  if (n !== y.length) return false;
  if (n > kShortKey) return x.equals(y);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** keys up to this many bytes are compared byte by byte in JS */
const kShortKey = 32;

/** bytes of a key and its arguments, for --batch-max-bytes */
export function argBytes(key: Buffer, items: readonly Buffer[]): number {
  let n = key.length;
  for (const b of items) n += b.length;
  return n;
}

/**
 * rows (status, name) of a function that returns each name it added (s_add_new, h_set_new), or
 * one (2, NULL) for a wrong type, which every op answers alike. Each op, in arrival order, is
 * credited with the added names it mentions first (namesOf: its distinct names) — what it would
 * have answered run alone after the ops before it.
 */
export function creditAdded<A>(ops: readonly BatchOp<A>[], rows: Rows, namesOf: (args: A) => readonly Buffer[]): void {
  if (rows.length > 0 && rows[0][0] === 2) {
    for (const op of ops) op.answer(2, 0);
    return;
  }
  if (rows.length === 0) {
    // nothing new (a run re-adding what is there: redis-benchmark's SADD and HSET name one
    // member or field for every client): no op adds anything, and no name need be compared
    for (const op of ops) op.answer(1, 0);
    return;
  }
  const added = new Set<string>();
  for (const r of rows) added.add((r[1] as Buffer).toString('latin1'));
  for (const op of ops) {
    let n = 0;
    for (const name of namesOf(op.args)) if (added.delete(name.toString('latin1'))) n++;
    op.answer(1, n);
  }
}

/** The first row (status, n) of a family function run for one op: n is an int8 (text), a count. */
export function answerCount<A>(op: BatchOp<A>, rows: Rows): void {
  op.answer(rows[0][0] as number, Number(rows[0][1]));
}

/**
 * The one name every op of a run names alone (each op one name, all equal), or null: the run's
 * distinct names without a string per op (hset-batch, sadd-batch params; redis-benchmark's HSET
 * and SADD name one field or member from every client, and the latin1 strings and Map of the
 * general dedupe were ~10% of PostRESP's CPU per HSET, profiled with perf).
 */
export function oneName<A>(ops: readonly BatchOp<A>[], namesOf: (args: A) => readonly Buffer[]): Buffer | null {
  const first = namesOf(ops[0].args);
  if (first.length !== 1) return null;
  const name = first[0];
  for (let i = 1; i < ops.length; i++) {
    const names = namesOf(ops[i].args);
    if (names.length !== 1 || !names[0].equals(name)) return null;
  }
  return name;
}
