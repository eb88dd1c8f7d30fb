/**
 * The read run: consecutive GET / MGET ops as one SELECT over every key they name (kSql.read,
 * one row per key found and live). Each key's (type, value) goes to its op's reply function —
 * the command decides what another type means (GET: WRONGTYPE, MGET: nil). When the read cache
 * missed on an op (op.cache), the run reads expiries too and gives the cache every key's result.
 */
import { kAbsent, type KeyReply, type ReadOp } from '../../core/engine/ops';
import type { Reply } from '../../core/engine/reply';
import { int8 } from '../../core/engine/pg-driver/binary-array';
import type { PgResult } from '../../core/engine/pg-driver/result';
import type { Pipeline } from './pipeline';
import { kSql } from './statements';

export function sendReads(p: Pipeline, ops: ReadOp[]): void {
  let total = 0;
  for (const op of ops) total += op.key !== null ? 1 : op.keys!.length;
  const dbs = new Int16Array(total);
  const keys = new Array<Buffer>(total);
  // each key's place among the distinct keys sent: a key repeated right after itself is read
  // once (redis-benchmark's GET names one key for every client: a run of 256 GETs sent 256
  // lookups and got the same 1 KiB row back 256 times)
  const slots = new Int32Array(total);
  let n = 0;
  let at = 0;
  let cached = false;
  for (const op of ops) {
    if (op.cache !== null) cached = true;
    if (op.key !== null) { n = put(dbs, keys, n, op.db, op.key); slots[at++] = n - 1; continue; }
    for (const k of op.keys!) { n = put(dbs, keys, n, op.db, k); slots[at++] = n - 1; }
  }
  keys.length = n;
  // as they are: the connection's encoder writes int2[] / bytea[] into its reused buffer
  p.send(cached ? kSql.readExp.text : kSql.read.text, [n === total ? dbs : dbs.subarray(0, n), keys, int8(Date.now())],
    (err, res) => (err ? p.fail(ops, err) : resolveReads(ops, res!, slots, n)));
}

/** appends (db, key) unless it repeats the last key appended; returns the distinct count */
function put(dbs: Int16Array, keys: Buffer[], n: number, db: number, key: Buffer): number {
  if (n > 0 && dbs[n - 1] === db) {
    const last = keys[n - 1];
    if (last.length === key.length && last.equals(key)) return n;
  }
  dbs[n] = db;
  keys[n] = key;
  return n + 1;
}

/** rows (i, type, value): i is the key's 1-based place among the distinct keys sent; slots: each op key's place */
export function resolveReads(ops: readonly ReadOp[], res: PgResult, slots: Int32Array, distinct: number): void {
  const rowOf = new Int32Array(distinct).fill(-1);
  for (let r = 0; r < res.rowCount; r++) rowOf[res.int(r, 0)! - 1] = r;
  let at = 0;
  // consecutive GETs of one key with one reply function answer one reply object (nothing runs
  // between them on the lane): redis-benchmark's GET made a value view and a reply per op
  let lastSlot = -1;
  let lastFn: KeyReply | null = null;
  let last: Reply = null;
  for (const op of ops) {
    if (op.key !== null) {
      const slot = slots[at++];
      const row = rowOf[slot];
      if (op.cache !== null) {
        fill(op, op.key, res, row, op.cacheVersion);
        op.settle(keyReply(op, res, row));
        continue;
      }
      if (slot !== lastSlot || op.reply !== lastFn) {
        lastSlot = slot;
        lastFn = op.reply;
        last = keyReply(op, res, row);
      }
      op.settle(last);
      continue;
    }
    const out: Reply[] = new Array(op.keys!.length);
    for (let k = 0; k < out.length; k++) {
      const row = rowOf[slots[at++]];
      if (op.cache !== null) fill(op, op.keys![k], res, row, op.cacheVersions![k]);
      out[k] = keyReply(op, res, row);
    }
    op.settle(out);
  }
}

function keyReply(op: ReadOp, res: PgResult, row: number): Reply {
  return row < 0 ? op.reply(kAbsent, null) : op.reply(res.int(row, 1)!, res.value(row, 2));
}

function fill(op: ReadOp, key: Buffer, res: PgResult, row: number, version: number): void {
  if (row < 0) op.cache!.fill(op.db, key, kAbsent, null, 0, version, op.cacheEpoch);
  else op.cache!.fill(op.db, key, res.int(row, 1)!, res.value(row, 2), res.int(row, 3)!, version, op.cacheEpoch);
}
