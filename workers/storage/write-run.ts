/**
 * The write run: consecutive plain SET / SETEX / MSET ops as one multi-row upsert (kSql.write).
 * Postgres refuses to update one row twice in a statement, so the last write of a key wins (what
 * serial execution leaves), and rows go in (db, key) order: two lanes writing overlapping keys
 * in different orders would deadlock (core/engine/write-order.ts). Every op answers OK once the
 * statement committed.
 */
import type { WriteOp } from '../../core/engine/ops';
import { kOk } from '../../core/engine/shared-replies';
import { int8Array } from '../../core/engine/pg-driver/binary-array';
import { writeOrder } from '../../core/engine/write-order';
import type { Pipeline } from './pipeline';
import { kSql } from './statements';

export function sendWrites(p: Pipeline, ops: WriteOp[]): void {
  p.send(kSql.write.text, writeArrays(ops), (err) => {
    if (err) return p.fail(ops, err);
    for (const op of ops) op.settle(kOk);
  });
}

/** The write statement's parameters: dbs, keys, values, expiries — last write wins per (db, key), in (db, key) order. */
export function writeArrays(ops: readonly WriteOp[]): unknown[] {
  let n = 0;
  for (const op of ops) n += op.key !== null ? 1 : op.kv!.length >> 1;
  const dbs = new Array<number>(n);
  const keys = new Array<Buffer>(n);
  const values = new Array<Buffer>(n);
  const exps = new Array<number | null>(n);
  let r = 0;
  for (const op of ops) {
    if (op.key !== null) {
      dbs[r] = op.db;
      keys[r] = op.key;
      values[r] = op.data!;
      exps[r++] = op.exp;
      continue;
    }
    const kv = op.kv!;
    for (let i = 0; i < kv.length; i += 2, r++) {
      dbs[r] = op.db;
      keys[r] = kv[i];
      values[r] = kv[i + 1];
      exps[r] = op.exp;
    }
  }
  const order = writeOrder(dbs, keys);
  const m = order.length;
  const sDbs = new Int16Array(m);
  const sKeys = new Array<Buffer>(m);
  const sValues = new Array<Buffer>(m);
  const sExps = new Array<number | null>(m);
  for (let i = 0; i < m; i++) {
    const a = order[i];
    sDbs[i] = dbs[a];
    sKeys[i] = keys[a];
    sValues[i] = values[a];
    sExps[i] = exps[a];
  }
  // dbs, keys and values go to the connection's parameter encoder as they are: it writes them
  // as binary int2[] / bytea[] into the buffer it reuses for every statement (a bytea[] Buffer
  // built here was a fresh 256 KiB allocation per 256-row batch of 1 KiB values). expires_at
  // stays a pre-encoded int8[]: an array of only nulls would go out typed as bytea[].
  return [sDbs, sKeys, sValues, int8Array(sExps)];
}
