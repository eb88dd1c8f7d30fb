/** Operations a lane queues. Runs of consecutive Read, Write or Incr ops become one statement each. */
import type { Reply } from '../../core/engine/reply';
import type { Statement } from './statements';
import type { WatchedKey } from '../../core/engine/session';

export const enum OpKind { Read, Write, Stmt, Tx, Incr }

export type Resolve = (r: Reply) => void;

/** GET (multi=false: WRONGTYPE on another type) or MGET (multi=true: nil for other types) */
export interface ReadOp { kind: OpKind.Read; db: number; keys: Buffer[]; multi: boolean; resolve: Resolve }

/** plain SET, SET with an absolute expiry, MSET: `kv` is key, value, key, value… */
export interface WriteOp { kind: OpKind.Write; db: number; kv: Buffer[]; exp: number | null; resolve: Resolve }

/** INCR/INCRBY/DECR/DECRBY: runs become one incr_many() call */
export interface IncrOp { kind: OpKind.Incr; db: number; key: Buffer; delta: bigint; resolve: Resolve }

/** a statement of its own (exact, order-dependent commands) */
export interface StmtOp {
  kind: OpKind.Stmt;
  stmt: Statement;
  values: unknown[];
  map: (rows: unknown[][]) => Reply;
  resolve: Resolve;
}

/** MULTI/EXEC: BEGIN, the watch check, each op's statement, COMMIT — one transaction, pipelined.
 *  Resolves kOk when committed, null when a watched key changed, a RespError otherwise. */
export interface TxOp { kind: OpKind.Tx; ops: Op[]; watch: WatchedKey[]; resolve: Resolve }

export type Op = ReadOp | WriteOp | StmtOp | TxOp | IncrOp;

export function opBytes(op: Op): number {
  let n = 16;
  if (op.kind === OpKind.Read) for (const k of op.keys) n += k.length;
  else if (op.kind === OpKind.Write) for (const b of op.kv) n += b.length;
  else if (op.kind === OpKind.Tx) for (const o of op.ops) n += opBytes(o);
  else if (op.kind === OpKind.Incr) n += op.key.length;
  else for (const v of op.values) n += Buffer.isBuffer(v) ? v.length : 8;
  return n;
}
