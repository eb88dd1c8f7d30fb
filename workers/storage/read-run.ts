/**
 * The read run: consecutive GET / MGET ops as one SELECT over every key they name (kSql.read,
 * one row per key found and live). Each key's (type, value) goes to its op's reply function —
 * the command decides what another type means (GET: WRONGTYPE, MGET: nil). When the read cache
 * missed on an op (op.cache), the run reads expiries too and gives the cache every key's result.
 */
import { kAbsent, type ReadOp } from '../../core/engine/ops';
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
  let at = 0;
  let cached = false;
  for (const op of ops) {
    if (op.cache !== null) cached = true;
    if (op.key !== null) { dbs[at] = op.db; keys[at++] = op.key; continue; }
    for (const k of op.keys!) { dbs[at] = op.db; keys[at++] = k; }
  }
  // as they are: the connection's encoder writes int2[] / bytea[] into its reused buffer
  p.send(cached ? kSql.readExp.text : kSql.read.text, [dbs, keys, int8(Date.now())], (err, res) => (err ? p.fail(ops, err) : resolveReads(ops, res!, total)));
}

/** rows (i, type, value): i is the key's 1-based place among the run's keys */
export function resolveReads(ops: readonly ReadOp[], res: PgResult, total: number): void {
  const rowOf = new Int32Array(total).fill(-1);
  for (let r = 0; r < res.rowCount; r++) rowOf[res.int(r, 0)! - 1] = r;
  let at = 0;
  for (const op of ops) {
    if (op.key !== null) {
      if (op.cache !== null) fill(op, op.key, res, rowOf[at], op.cacheVersion);
      op.settle(keyReply(op, res, rowOf[at++]));
      continue;
    }
    const out: Reply[] = new Array(op.keys!.length);
    for (let k = 0; k < out.length; k++) {
      if (op.cache !== null) fill(op, op.keys![k], res, rowOf[at], op.cacheVersions![k]);
      out[k] = keyReply(op, res, rowOf[at++]);
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
