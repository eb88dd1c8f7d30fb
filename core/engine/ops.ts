/**
 * What a storage command hands the KeyStore: one op, which is also the reply the command returns
 * (a PendingReply the lane settles: one object per command instead of an op, a PendingReply and
 * its bound settle closure).
 *
 * The op says which run it joins (workers/storage/runs.ts cuts a lane's batch by asking it):
 *
 *   ReadOp  (GET, MGET)              ─┐ consecutive ops of one kind: one statement of the lane's
 *   WriteOp (plain SET, SETEX, MSET) ─┤ own (workers/storage/statements.ts)
 *   IncrOp  (INCR family)            ─┘
 *   BatchOp (a family's Batch)       ── consecutive ops of one Batch that joins(): one statement
 *                                       of that family's (batch.ts: pushes, pops, SADD, HSET)
 *   StmtOp, TxOp                     ── alone
 *
 * Results come back typed — a key's type and value, a function's status and count — and the
 * command's own reply function (static, declared in its file) turns them into the reply: the
 * lane knows no WRONGTYPE-versus-nil rule and no status code.
 */
import { PendingReply, type Noted } from './pending-reply';
import type { Reply } from './reply';
import type { Rows, Statement } from './key-store';
import type { WatchedKey } from './session';
import { kOk } from './shared-replies';

export const enum OpKind { Read, Write, Incr, Stmt, Batch, Tx }

/** The `type` a read hands a reply function for a key it did not find (missing or expired). */
export const kAbsent = -1;

/** One key's kv.type (kAbsent when missing) and its value when a string, as the command answers it. */
export type KeyReply = (type: number, value: Buffer | null) => Reply;

/** incr_many's status for one op (1 ok, 2 wrong type, 3 not an integer, 4 overflow) and the new value. */
export type IncrReply = (status: number, value: bigint | null) => Reply;

/** A collection function's status (2 = wrong type) and count (elements added, the new length…). */
export type CountReply = (status: number, n: number) => Reply;

/** The read cache (core/engine/cache/near-cache.ts) as the read run sees it: keeps what a tagged read found. */
export interface ReadFill {
  fill(db: number, key: Buffer, type: number, value: Buffer | null, exp: number, version: number, epoch: number): void;
}

/** GET (`key`) or MGET (`keys`: the reply is the array of each key's reply). */
export class ReadOp extends PendingReply {
  readonly kind = OpKind.Read;
  /** set when the read cache missed: the run reads expiries too and hands each row to it */
  cache: ReadFill | null = null;
  /** the epoch and the key's slot version (MGET: each key's) before the read was sent */
  cacheEpoch = 0;
  cacheVersion = 0;
  cacheVersions: Int32Array | null = null;
  constructor(readonly db: number, readonly key: Buffer | null, readonly keys: Buffer[] | null, readonly reply: KeyReply) {
    super();
  }
}

/**
 * Plain SET / SET with an absolute expiry (`key`, `data`) or MSET (`kv`: key, value, key,
 * value…); OK once committed. (`value` is the PendingReply's: the reply.)
 */
export class WriteOp extends PendingReply {
  readonly kind = OpKind.Write;
  constructor(readonly db: number, readonly key: Buffer | null, readonly data: Buffer | null,
    readonly kv: Buffer[] | null, readonly exp: number | null) {
    super();
  }
}

/** INCR / INCRBY / DECR / DECRBY: runs become one incr_many() call. */
export class IncrOp extends PendingReply {
  readonly kind = OpKind.Incr;
  constructor(readonly db: number, readonly key: Buffer, readonly delta: bigint, readonly reply: IncrReply) {
    super();
  }
}

/** A statement of its own (exact, order-dependent commands); `map` is the command's reply. */
export class StmtOp extends PendingReply {
  readonly kind = OpKind.Stmt;
  /**
   * Must not share a transaction with the other runs of its batch (workers/storage/batch-tx.ts).
   * WATCH: it reads the version (the writing transaction's id) of its keys, and a write of the
   * same batch transaction, before or after it, would carry that same id and go unseen by EXEC.
   */
  readonly ownTransaction: boolean = false;
  /**
   * Checked when the lane is about to send the statement: false answers null without sending it.
   * A blocked client's pop (commands/blocking) is sent only while the client is connected, so
   * an element is never taken for a client that went away.
   */
  guard: (() => boolean) | undefined = undefined;
  constructor(readonly stmt: Statement, readonly values: unknown[], readonly map: (rows: Rows) => Reply | Noted) {
    super();
  }
}

/**
 * How a family's command batches (STYLE.md: a family owns its batching). A lane carries
 * consecutive BatchOps of one Batch whose args `joins` accepts as ONE statement — statement(ops)
 * with params(ops, now) — and resolve(ops, rows) answers each op, through op.answer, what serial
 * execution would have answered. A run of one is the command alone. `joins` compares typed args
 * ({ db, key, members }), never a statement's positional parameters.
 */
export interface Batch<A> {
  joins(first: A, next: A): boolean;
  statement(ops: readonly BatchOp<A>[]): Statement;
  /** `now`: int8 Unix ms, taken once per run */
  params(ops: readonly BatchOp<A>[], now: Buffer): unknown[];
  resolve(ops: readonly BatchOp<A>[], rows: Rows): void;
  /** the bytes an op adds to a batch (--batch-max-bytes) */
  bytes(args: A): number;
}

export class BatchOp<A = unknown> extends PendingReply {
  readonly kind = OpKind.Batch;
  /** `reply`: how answer() words a count; null for a family whose resolve() settles replies itself (pops) */
  constructor(readonly batch: Batch<A>, readonly args: A, readonly reply: CountReply | null) {
    super();
  }

  answer(status: number, n: number): void {
    this.settle(this.reply!(status, n));
  }
}

/**
 * MULTI/EXEC: BEGIN, the watch check, each op alone, COMMIT — one transaction, pipelined. Settles
 * kOk when committed, null when a watched key changed, a RespError otherwise; then the queued
 * ops' replies must not be sent, so they settle null (an op already answered keeps its value).
 */
export class TxOp extends PendingReply {
  readonly kind = OpKind.Tx;
  constructor(readonly ops: Op[], readonly watch: WatchedKey[]) {
    super();
  }

  override settle(r: Reply): void {
    if (r !== kOk) for (const op of this.ops) op.settle(null);
    super.settle(r);
  }
}

export type Op = ReadOp | WriteOp | IncrOp | StmtOp | BatchOp | TxOp;
