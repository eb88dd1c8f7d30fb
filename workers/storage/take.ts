/**
 * How much of a lane's queue the next batch takes: at most --batch-max-commands ops and, once
 * their arguments reach --batch-max-bytes, no more (the op that crosses the line still goes).
 */
import { OpKind, type IncrOp, type Op } from '../../core/engine/ops';
import { sameKey, type KeyArgs } from '../../core/engine/commands/collection/batch';

/** the number of ops at the head of `queue` that form the next batch (at least one) */
export function batchLength(queue: readonly Op[], maxOps: number, maxBytes: number): number {
  let n = 0;
  let bytes = 0;
  while (n < queue.length && n < maxOps) {
    const op = queue[n];
    // a transaction whose WATCH is in this batch: its check needs that answer, so next batch
    if (n > 0 && op.kind === OpKind.Tx && op.watch.some((w) => w.pending !== undefined)) break;
    bytes += opBytes(op);
    n++;
    if (bytes >= maxBytes) break;
  }
  return n;
}

/**
 * The ops at the head of `queue` that may go out behind a batch still in flight (lane.ts,
 * --batch-pipeline-min): reads, writes, increments and family batch ops only, within the same
 * bounds. Not a MULTI/EXEC (its WATCH check needs answers still on their way) nor a statement op
 * (WATCH, blocking pops, scripts' lanes: each is alone and decides things on the answers before it).
 */
export function followLength(queue: readonly Op[], maxOps: number, maxBytes: number): number {
  let n = 0;
  let bytes = 0;
  while (n < queue.length && n < maxOps) {
    const op = queue[n];
    if (op.kind === OpKind.Tx || op.kind === OpKind.Stmt) break;
    bytes += opBytes(op);
    n++;
    if (bytes >= maxBytes) break;
  }
  return n;
}

/**
 * A run (all of a batch in flight) that a next batch may go out behind: one that cannot be a
 * deadlock victim, so it never has to be sent again after what followed it. Reads lock no rows; a
 * run on ONE key (INCRs, a family's batch ops: pushes, pops, SADDs…) waits only for that key's row,
 * before it holds any lock. A SET/MSET run or a batch run over several keys locks several rows and
 * can deadlock with another lane's batch transaction.
 */
export function mayLead(run: readonly Op[]): boolean {
  const first = run[0];
  switch (first.kind) {
    case OpKind.Read: return true;
    case OpKind.Incr: return run.every((op) => sameKey(first, op as IncrOp));
    case OpKind.Batch: {
      const a = first.args as Partial<KeyArgs>;
      if (!Buffer.isBuffer(a.key) || typeof a.db !== 'number') return false;
      return run.every((op) => sameKey(a as KeyArgs, (op as typeof first).args as KeyArgs));
    }
    default: return false;
  }
}

/** argument bytes of an op, plus 16 for the op itself */
export function opBytes(op: Op): number {
  let n = 16;
  switch (op.kind) {
    case OpKind.Read:
      if (op.key !== null) n += op.key.length;
      else for (const k of op.keys!) n += k.length;
      break;
    case OpKind.Write:
      if (op.key !== null) n += op.key.length + op.data!.length;
      else for (const b of op.kv!) n += b.length;
      break;
    case OpKind.Incr: n += op.key.length; break;
    case OpKind.Batch: n += op.batch.bytes(op.args); break;
    case OpKind.Tx: for (const o of op.ops) n += opBytes(o); break;
    case OpKind.Stmt: for (const v of op.values) n += valueBytes(v); break;
  }
  return n;
}

function valueBytes(v: unknown): number {
  if (Buffer.isBuffer(v)) return v.length;
  if (Array.isArray(v)) {
    let n = 8;
    for (const b of v) n += Buffer.isBuffer(b) ? b.length : 8;
    return n;
  }
  return 8;
}
