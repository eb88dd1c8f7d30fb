/**
 * The worker's KeyStore: `--pg-connections` lanes; each client is pinned to one lane (round
 * robin on its first command), so its commands execute in the order it sent them.
 */
import { SetCond, type KeyStore, type Rows, type SetRequest, type Statement } from '../../core/engine/key-store';
import type { Reply } from '../../core/engine/reply';
import type { Session, WatchedKey } from '../../core/engine/session';
import { RespError } from '../../core/engine/reply';
import { kOk } from '../../core/engine/shared-replies';
import { Lane, type LaneOptions } from './lane';
import { PendingReply } from '../../core/engine/pending-reply';
import { OpKind, type Op } from './ops';
import { Err } from './replies';
import { kKeySql } from '../../core/engine/commands/keys/sql';
import { kStringSql } from '../../core/engine/commands/string/sql';
import { kTransactionSql } from '../../core/engine/commands/transactions/sql';
import { encodeBufferArray, int2Array, int8, int8Array } from '../../core/engine/pg-driver/binary-array';

export class LaneStore implements KeyStore {
  readonly lanes: Lane[];

  constructor(count: number, opts: LaneOptions) {
    this.lanes = Array.from({ length: count }, () => new Lane(opts));
  }

  async start(): Promise<void> {
    await Promise.all(this.lanes.map((l) => l.start()));
  }

  close(): Promise<void[]> {
    return Promise.all(this.lanes.map((l) => l.close()));
  }

  /** ops produced while EXEC runs its queued commands (synchronously), instead of the lane */
  private capture: Op[] | undefined;
  /** Client ids are global and the primary deals clients to workers in turn, so `id % lanes`
   * put every client of a worker on one lane (measured: 29,159 ops on one lane, 3,035 on the
   * other); a per-worker round robin spreads them. */
  private readonly pinned = new WeakMap<Session, Lane>();
  private nextLane = 0;

  private laneOf(s: Session): Lane {
    let lane = this.pinned.get(s);
    if (lane === undefined) {
      lane = this.lanes[this.nextLane++ % this.lanes.length];
      this.pinned.set(s, lane);
    }
    return lane;
  }

  /** Queues op on the session's lane (or EXEC's capture); `out` is what the command returns. */
  private submit(s: Session, op: Op, out: PendingReply): PendingReply {
    if (this.capture !== undefined) this.capture.push(op);
    else this.laneOf(s).submit(op);
    return out;
  }

  async transaction(s: Session, watched: WatchedKey[], body: () => (Reply | PromiseLike<Reply>)[]): Promise<Reply[] | null | RespError> {
    const outer = this.capture;
    this.capture = [];
    let results: (Reply | PromiseLike<Reply>)[];
    let ops: Op[];
    try {
      results = body();
    } finally {
      ops = this.capture;
      this.capture = outer;
    }
    if (ops.length > 0 || watched.length > 0) {
      const done = new PendingReply();
      const pending = this.submit(s, {
        kind: OpKind.Tx, ops, watch: watched,
        resolve(r: Reply) {
          // not committed: the queued commands' replies must not be sent; settle their promises
          if (r !== kOk) for (const op of ops) op.resolve(null);
          done.settle(r);
        },
      }, done);
      // right behind the transaction on the lane (one pipeline): the check has seen the marks
      this.unwatch(s, watched);
      const outcome = await pending;
      if (outcome === null) return null;
      if (outcome !== kOk) return outcome instanceof RespError ? outcome : new RespError('ERR transaction failed');
    }
    return Promise.all(results);
  }

  watch(s: Session, keys: Buffer[]): PendingReply {
    const db = s.db;
    const out = new PendingReply();
    const entries = keys.map((key): WatchedKey => ({ db, key, version: '0', mark: false, pending: out }));
    s.watched.push(...entries);
    const values = [int2Array(keys.map(() => db)), encodeBufferArray(keys), int8(Date.now())];
    // map and resolve run in the lane's callback, before it takes its next batch: a transaction
    // queued behind this WATCH finds the entries filled (Lane.take). Failed: version 0 matches
    // no row, so EXEC answers nil.
    return this.submit(s, {
      kind: OpKind.Stmt, stmt: kTransactionSql.watch, values,
      map(rows): Reply {
        for (const [i, version, mark] of rows as [number, string, boolean][]) Object.assign(entries[i - 1], { version, mark });
        return kOk;
      },
      resolve(r: Reply) {
        for (const e of entries) e.pending = undefined;
        out.settle(r);
      },
    }, out);
  }

  /** Queued after anything of the session's already queued (EXEC's check first); nobody waits for it. */
  unwatch(s: Session, watched: WatchedKey[]): void {
    const pending = watched.find((w) => w.pending !== undefined)?.pending;
    if (pending !== undefined) {
      // WATCH pipelined just before: release what it marks once it has answered
      pending.then(() => this.unwatch(s, watched), () => undefined);
      return;
    }
    const marks = watched.filter((w) => w.mark);
    if (marks.length === 0) return;
    const values = [int2Array(marks.map((w) => w.db)), encodeBufferArray(marks.map((w) => w.key)),
      int8Array(marks.map((w) => Number(w.version)))];
    this.submit(s, { kind: OpKind.Stmt, stmt: kTransactionSql.watchRelease, values, map: () => null, resolve: () => undefined }, new PendingReply());
  }

  exec(s: Session, stmt: Statement, values: unknown[], map: (rows: Rows) => Reply): PendingReply {
    const out = new PendingReply();
    return this.submit(s, { kind: OpKind.Stmt, stmt, values, map, resolve: out.settle }, out);
  }

  get(s: Session, key: Buffer): PendingReply {
    const out = new PendingReply();
    return this.submit(s, { kind: OpKind.Read, db: s.db, keys: [key], multi: false, resolve: out.settle }, out);
  }

  mget(s: Session, keys: Buffer[]): PendingReply {
    const out = new PendingReply();
    return this.submit(s, { kind: OpKind.Read, db: s.db, keys, multi: true, resolve: out.settle }, out);
  }

  set(s: Session, key: Buffer, req: SetRequest): PendingReply {
    const out = new PendingReply();
    if (req.cond === SetCond.None && !req.keepTtl && !req.get) {
      return this.submit(s, { kind: OpKind.Write, db: s.db, kv: [key, req.value], exp: req.expiresAt, resolve: out.settle }, out);
    }
    const values = [String(s.db), key, req.value, req.expiresAt === null ? null : int8(req.expiresAt),
      String(req.cond), req.keepTtl ? 'true' : 'false', req.get ? 'true' : 'false', int8(Date.now())];
    return this.submit(s, {
      kind: OpKind.Stmt, stmt: kStringSql.setCond, values, resolve: out.settle,
      map(rows): Reply {
        const status = rows[0][0] as number;
        if (status === 2) return Err.wrongType;
        if (req.get) return (rows[0][1] as Buffer | null) ?? null;
        return status === 1 ? kOk : null;
      },
    }, out);
  }

  mset(s: Session, kv: Buffer[]): PendingReply {
    const out = new PendingReply();
    return this.submit(s, { kind: OpKind.Write, db: s.db, kv, exp: null, resolve: out.settle }, out);
  }

  private keyStmt(s: Session, stmt: typeof kKeySql.del, keys: Buffer[]): PendingReply {
    const values = [int2Array(keys.map(() => s.db)), encodeBufferArray(keys), int8(Date.now())];
    return this.exec(s, stmt, values, (rows) => rows[0][0] as number);
  }

  del(s: Session, keys: Buffer[]): PendingReply {
    return this.keyStmt(s, kKeySql.del, keys);
  }

  exists(s: Session, keys: Buffer[]): PendingReply {
    return this.keyStmt(s, kKeySql.exists, keys);
  }

  incrBy(s: Session, key: Buffer, delta: bigint): PendingReply {
    const out = new PendingReply();
    return this.submit(s, { kind: OpKind.Incr, db: s.db, key, delta, resolve: out.settle }, out);
  }

  dbsize(s: Session): PendingReply {
    const values = [String(s.db), int8(Date.now())];
    return this.exec(s, kKeySql.dbsize, values, (rows) => rows[0][0] as number);
  }

  flush(s: Session, db: number | null): PendingReply {
    const stmt = db === null ? kKeySql.flushall : kKeySql.flushdb;
    const values = db === null ? [] : [String(db)];
    return this.exec(s, stmt, values, () => kOk);
  }
}
