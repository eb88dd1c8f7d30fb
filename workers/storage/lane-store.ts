/**
 * The worker's KeyStore: `--pg-connections` lanes. A client's commands execute in the order it
 * sent them: while any of its ops is unanswered, the next goes to the same lane (each lane is
 * FIFO). A client with nothing unanswered may go to any lane, since everything it sent before has
 * committed: by default it stays on the lane it was pinned to (round robin); with `--lane-spill`
 * N it goes to the first lane unless that one has a batch in Postgres and N ops already queued
 * behind it, then to the next such lane (see laneOf).
 */
import type { AtomicRequest, AtomicRun, KeyStore } from '../../core/engine/key-store';
import type { Reply } from '../../core/engine/reply';
import type { Session, WatchedKey } from '../../core/engine/session';
import { RespError } from '../../core/engine/reply';
import { kOk } from '../../core/engine/shared-replies';
import { OpKind, StmtOp, TxOp, type Op } from '../../core/engine/ops';
import type { NearCache } from '../../core/engine/cache/near-cache';
import type { PendingReply } from '../../core/engine/pending-reply';
import { Lane, type LaneOptions } from './lane';
import { RingForwarder } from './lane-feeder-forward';
import { startLaneFeeds } from './lane-feeder';
import { StatementStore } from './statement-store';
import { ScriptPool } from './script-pool';
import { kTransactionSql } from '../../core/engine/commands/transactions/sql';
import { encodeBufferArray, int2Array, int8, int8Array } from '../../core/engine/pg-driver/binary-array';

/** WATCH's op: fills the session's entries from its rows; until it answers they are `pending`. */
class WatchOp extends StmtOp {
  override readonly ownTransaction = true;

  constructor(values: unknown[], private readonly entries: WatchedKey[]) {
    super(kTransactionSql.watch, values, (rows) => {
      for (const [i, version, mark] of rows as [number, string, boolean][]) Object.assign(entries[i - 1], { version, mark });
      return kOk;
    });
  }

  override settle(r: Reply): void {
    for (const e of this.entries) e.pending = undefined;
    super.settle(r);
  }
}

const nothing = (): Reply => null;

interface Placement { lane: Lane; op: Op | undefined }

export interface LaneStoreOptions extends LaneOptions {
  /** connections kept for scripts' transactions (opened on first use) */
  scriptConnections: number;
  /** --script-batch-ms: a batch of script calls commits once its calls ran this long */
  scriptBatchMs?: () => number;
  /** --lane-spill (absent: 0, clients pinned round robin) */
  laneSpill?: () => number;
}

export class LaneStore extends StatementStore implements KeyStore {
  readonly lanes: Lane[];
  /** EVAL/FCALL transactions, on connections of their own: a long script never stalls a lane */
  readonly scripts: ScriptPool;

  constructor(count: number, opts: LaneStoreOptions) {
    super();
    this.spill = opts.laneSpill ?? (() => 0);
    this.lanes = Array.from({ length: count }, () => new Lane(opts));
    this.scripts = new ScriptPool(opts.scriptConnections, opts, opts.scriptBatchMs);
  }

  /** --shared-lanes: this worker's plain SETs go to worker 0's lanes (index > 0), or it takes the others' (0) */
  private forward: RingForwarder | undefined;

  shareLanes(rings: readonly (SharedArrayBuffer | undefined)[], workerIndex: number): void {
    if (workerIndex === 0) startLaneFeeds(rings, this.lanes);
    else if (rings[workerIndex] !== undefined) this.forward = new RingForwarder(rings[workerIndex]!);
  }

  async start(): Promise<void> {
    await Promise.all(this.lanes.map((l) => l.start()));
  }

  async close(): Promise<void> {
    await Promise.all([...this.lanes.map((l) => l.close()), this.scripts.close()]);
  }

  async atomic<T>(s: Session, req: AtomicRequest, body: (run: AtomicRun) => Promise<T>): Promise<T | RespError> {
    // the client's commands before the call go first (its later ones are held by dispatch until
    // the call answered): each lane answers in order, so waiting for its last op covers them
    const last = this.placed.get(s)?.op;
    if (last !== undefined && !last.done) await last;
    // (no await at all without --shared-lanes: the call starts in the same tick as before)
    const forwarded = this.forward?.idle(s);
    if (forwarded !== undefined) await forwarded;
    return this.scripts.atomic(req, body);
  }

  /** ops produced while EXEC runs its queued commands (synchronously), instead of the lane */
  private capture: Op[] | undefined;
  /** each session's lane and the last op it put there (one object per session, updated in place) */
  private readonly placed = new WeakMap<Session, Placement>();
  private nextLane = 0;
  /** --lane-spill: ops queued behind a batch in flight before a free client goes to the next lane (0: clients pinned round robin) */
  private readonly spill: () => number;

  /**
   * The lane for s's next op. Filling the first lane before the next one makes batches large at low
   * pipeline depth (one worker, 20 clients at -P 1: ~10 SETs a batch on one lane instead of ~5 on
   * each of two, −20% node and −30% Postgres CPU per SET), and the spill still puts a second
   * Postgres backend to work once a lane's queue grows behind its batch (-P 16: one backend alone
   * ran SET at 0.77× of two). With spill 0, clients are pinned round robin on their first command
   * (client ids are global and dealt to workers in turn, so `id % lanes` put all of a worker's
   * clients on one lane).
   */
  private laneOf(s: Session): Placement {
    let p = this.placed.get(s);
    if (p !== undefined && (p.op === undefined || !p.op.done || this.lanes.length === 1)) return p;
    const spill = this.spill();
    const lane = spill === 0 ? p?.lane ?? this.lanes[this.nextLane++ % this.lanes.length] : this.freeLane(spill);
    if (p === undefined) this.placed.set(s, (p = { lane, op: undefined }));
    else p.lane = lane;
    return p;
  }

  private freeLane(spill: number): Lane {
    const lanes = this.lanes;
    let best = lanes[0];
    for (const l of lanes) {
      if (!l.inFlight || l.queued < spill) return l;
      if (l.queued < best.queued) best = l;
    }
    return best;
  }

  /** s's op goes to its lane, which is remembered with the op until it is answered */
  private place(s: Session, op: Op): Lane {
    const p = this.laneOf(s);
    p.op = op;
    return p.lane;
  }

  /** the read cache (workers/read-cache.ts); undefined with --cache off */
  cache: NearCache | undefined;

  /**
   * Queues op on the session's lane (or EXEC's capture); the op is what the command returns. A
   * GET/MGET the read cache answers is settled here (dispatch sees it done: an immediate reply),
   * unless a write of the same session is still unacknowledged (Session.unackedWrites).
   */
  submit<T extends Op>(s: Session, op: T): T {
    if (this.capture !== undefined) this.capture.push(op);
    else if (op.kind === OpKind.Read && this.cache !== undefined && s.unackedWrites === 0 && this.cache.serve(op)) return op;
    else if (this.forward !== undefined) this.forward.submit(s, op, this.place(s, op));
    else this.place(s, op).submit(op);
    return op;
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
      // settles kOk when committed; otherwise the queued commands' replies settle null, unsent
      const pending = this.submit(s, new TxOp(ops, watched));
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
    const entries = keys.map((key): WatchedKey => ({ db, key, version: '0', mark: false, pending: undefined }));
    const values = [int2Array(keys.map(() => db)), encodeBufferArray(keys), int8(Date.now())];
    // its map and settle run in the lane's callback, before it takes its next batch: a
    // transaction queued behind this WATCH finds the entries filled (take.ts). Failed: version 0
    // matches no row, so EXEC answers nil.
    const op = new WatchOp(values, entries);
    for (const e of entries) e.pending = op;
    s.watched.push(...entries);
    return this.submit(s, op);
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
    this.submit(s, new StmtOp(kTransactionSql.watchRelease, values, nothing));
  }
}
