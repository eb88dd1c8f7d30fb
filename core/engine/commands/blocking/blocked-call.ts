/**
 * One blocking command of one client, from its first attempt to its reply (docs/blocking.md):
 *
 *   first ──served / error──────────────────────────────────────────────▶ done (reply)
 *     │ nothing: registered as waiter n in blocked_waiters
 *     ▼
 *   registering (bus.waitKey on each key, until every worker and instance knows) ─▶ trying
 *   waiting ◀──nothing── trying (the pop again, as waiter n) ──served / error──▶ done
 *     └── wake-up ────────▶ │       a wake-up meanwhile: try again when it answers
 *   timeout, CLIENT UNBLOCK, disconnect: at once while waiting, else when the statement answers
 *   (an element it popped is delivered); then the rows go (b_withdraw) and the keys it leaves
 *   with elements and other waiters are woken.
 *
 * While the call lasts the client's later commands are held (Redis processes nothing of a
 * blocked client); CLIENT LIST shows `b` and INFO counts it from `registering` on.
 */
import { StmtOp } from '../../ops';
import { Noted, PendingReply } from '../../pending-reply';
import { RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import type { Rows, Statement } from '../../key-store';
import type { Session } from '../../session';
import { kBlockingSql } from './sql';
import { PresenceReply } from '../../key-presence';

/** What a blocked call needs of its worker (ServerContext.blocking, waits.ts). */
export interface BlockingHost {
  waitKey(db: number, key: Buffer, waiter: () => PromiseLike<unknown> | void): Promise<void>;
  unwaitKey(db: number, key: Buffer, waiter: () => PromiseLike<unknown> | void): void;
  /** wakes key's waiters anywhere: settled once this process's tried again (undefined: none here) */
  wake(db: number, key: Buffer): PromiseLike<unknown> | undefined;
  /** runs fn; returns the wake-ups' promises of the writes it reported (a served BLMOVE's push) */
  woken(fn: () => void): PromiseLike<unknown>[];
  /** INFO blocked_clients: +1 when a call blocks, -1 when it ends */
  countBlocked(delta: number): void;
}

/** One blocking command's statement and replies (pop.ts builds them per family). */
export interface BlockingPlan {
  db: number;
  /** in argument order, repeats allowed (BLPOP a b a) */
  keys: Buffer[];
  stmt: Statement;
  /** the statement's values for an attempt: seq null the first time, block false inside MULTI */
  values(seq: string | null, block: boolean): unknown[];
  /** the served rows (status 1, then the status 5 row) as the reply */
  reply(rows: Rows): Reply;
  /** on timeout and CLIENT UNBLOCK … TIMEOUT (a null array, even for BLMOVE) */
  timeoutReply: Reply;
  /** the non-blocking form's reply when every key is empty (MULTI): BLMOVE's nil, else timeoutReply */
  emptyReply?: Reply;
  /** BLMOVE, BRPOPLPUSH: the destination (its `new` when a pop served later created it) */
  dest?: Buffer;
}

/**
 * One attempt's result: not served (seq: the waiter number a pop registered, null for reads that
 * register nowhere), served (key and rest: what a pop left, to wake the next waiter), or an error.
 */
export type Outcome = { seq: string | null } | { served: Reply | Noted; key?: Buffer; rest: number; created?: Buffer }
  | { error: RespError; key?: Buffer; rest?: number };

/** What a BlockedCall waits for: a pop's plan (popTarget) or a stream read (stream/block.ts). */
export interface BlockingTarget {
  db: number;
  keys: Buffer[];
  /** a key besides `keys` that a serve may create (BLMOVE's destination) */
  dest?: Buffer;
  timeoutReply: Reply;
  /** one attempt as waiter `seq` (null before a pop registered); done is called once */
  attempt(s: Session, seq: string | null, done: (o: Outcome) => void): void;
}

const enum Phase { First, Registering, Waiting, Trying, Done }

const kGone = new RespError('ERR client gone');
/** ending's value for a client that disconnected: nothing is answered */
const kDisconnected = new RespError('ERR disconnected');
export const kUnblocked = new RespError('UNBLOCKED client unblocked via CLIENT UNBLOCK');
/** Node's timers hold at most 2^31-1 ms; longer timeouts re-arm */
const kMaxTimer = 2 ** 31 - 1;

/**
 * A blocking pop's rows: (0, n = seq) not served, (2) WRONGTYPE, else elements and (5, key, n = left).
 * (2) then (5, key, n): the pop ran and met a destination of another type (BLMOVE): the call was
 * served its WRONGTYPE, its waiter rows went with it, and the element stayed for the next waiter.
 */
function decode(rows: Rows, plan: BlockingPlan): Outcome {
  const first = rows[0];
  if (first[0] === 0) return { seq: String(first[first.length - 1]) };
  const last = rows[rows.length - 1];
  const rest = Number(last[last.length - 1]);
  for (const r of rows) {
    if (r[0] !== 2) continue;
    return last[0] === 5 || last[0] === 6 ? { error: Err.wrongType, key: last[1] as Buffer, rest } : { error: Err.wrongType };
  }
  // status 6: the pop created its destination
  const created = last[0] === 6 ? plan.dest : undefined;
  return { served: new Noted(plan.reply(rows), emptiedNote(rest)), key: last[1] as Buffer, rest, created };
}

/** A blocking pop as a BlockedCall's target: its statement, sent only while the client is connected. */
export function popTarget(plan: BlockingPlan): BlockingTarget {
  return {
    db: plan.db, keys: plan.keys, dest: plan.dest, timeoutReply: plan.timeoutReply,
    attempt(s, seq, done) {
      let outcome: Outcome | undefined;
      const op = new StmtOp(plan.stmt, plan.values(seq, true), (rows) => {
        outcome = decode(rows, plan);
        return null;
      });
      // not sent once the client is gone: the element stays for the next waiter
      op.guard = () => !s.isClosed;
      // no outcome: a storage error, or the guard answered null (the client is gone)
      op.listener = (v) => done(outcome ?? { error: v instanceof RespError ? v : kGone });
      s.server.store.submit(s, op);
    },
  };
}

export class BlockedCall {
  private phase = Phase.First;
  private seq: string | null = null;
  private again = false;
  /** a timeout, unblock or disconnect (kDisconnected) that came while a statement was in flight */
  private ending: Reply | undefined = undefined;
  private timer: NodeJS.Timeout | undefined = undefined;
  private deadline = 0;
  /**
   * The wake-ups' promises (wake returns one): `woken` settle when the next try answered,
   * `trying` when the try in flight did (a push's reply waits for them: docs/blocking.md). A try
   * that served settles them once the clients its own write woke were served too.
   */
  private woken: (() => void)[] = [];
  private trying: (() => void)[] = [];
  /**
   * Settled once; a served reply carries its note (a pop's emptiedNote, XREADGROUP's consumers
   * made) for the write hook. `held`: the caller made it and already holds the client's later
   * commands with it (stream reads, whose first attempt ran before), and that attempt found
   * nothing: the call registers at once (`heldSeq`: the waiter number that attempt took).
   */
  readonly reply: PendingReply;

  constructor(private readonly s: Session, private readonly host: BlockingHost, private readonly plan: BlockingTarget,
    timeoutMs: number, held?: PendingReply, heldSeq: string | null = null) {
    s.blocked = this;
    this.reply = held ?? new PresenceReply();
    // Redis runs nothing else of a blocked client: its later commands wait for the reply
    if (held === undefined) s.holdWhile?.(this.reply);
    if (timeoutMs > 0) {
      this.deadline = Date.now() + timeoutMs;
      this.arm(timeoutMs);
    }
    if (held === undefined) this.attempt();
    else this.answered({ seq: heldSeq });
  }

  /** CLIENT LIST's `b`, CLIENT UNBLOCK's target: registered as a waiter */
  get isBlocked(): boolean {
    return this.phase !== Phase.First && this.phase !== Phase.Done;
  }

  /** CLIENT UNBLOCK: true when the call was blocked */
  unblock(error: boolean): boolean {
    if (!this.isBlocked) return false;
    this.requestEnd(error ? kUnblocked : this.plan.timeoutReply);
    return true;
  }

  /** The client disconnected: no reply, no pop. */
  closed(): void {
    this.requestEnd(kDisconnected);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      const left = this.deadline - Date.now();
      if (left > 0) this.arm(Math.min(left, kMaxTimer));
      else this.requestEnd(this.plan.timeoutReply);
    }, Math.min(ms, kMaxTimer));
  }

  private readonly wake = (): Promise<void> | undefined => {
    if (this.phase === Phase.Done || this.phase === Phase.First) return undefined;
    // Registering: its first try comes once registered
    const tried = new Promise<void>((r) => this.woken.push(r));
    if (this.phase === Phase.Waiting) this.attempt();
    else if (this.phase === Phase.Trying) this.again = true;
    return tried;
  };

  private attempt(): void {
    const first = this.phase === Phase.First;
    if (!first) {
      this.phase = Phase.Trying;
      this.again = false;
      if (this.woken.length > 0) {
        const t = this.trying;
        this.trying = this.woken;
        this.woken = t;
      }
    }
    this.plan.attempt(this.s, this.seq, (o) => this.answered(o));
  }

  /** Settles the wake-ups' promises of the try that answered (all of them when the call ends). */
  private release(all: boolean): void {
    const t = this.trying;
    if (t.length > 0) {
      this.trying = [];
      for (const r of t) r();
    }
    if (all && this.woken.length > 0) {
      const w = this.woken;
      this.woken = [];
      for (const r of w) r();
    }
  }

  private answered(o: Outcome): void {
    if (this.phase === Phase.Done) return;
    if ('served' in o) {
      // served after it blocked: the keys as its pop found them, not as dispatch's probe did then
      if (this.seq !== null && this.reply instanceof PresenceReply) {
        this.reply.served(this.plan.dest === undefined ? this.plan.keys : [...this.plan.keys, this.plan.dest], o.created);
      }
      return this.finish(o.served, o.key, o.rest);
    }
    // served a WRONGTYPE (BLMOVE's destination): its rows are gone, the element stays: the next
    // waiter's turn, as after a serve (it was told "not first" by the same wake-up)
    if ('error' in o && o.key !== undefined) return this.finish(o.error, o.key, o.rest ?? 0);
    this.release(false);
    if ('seq' in o && this.seq === null && o.seq !== null) this.seq = o.seq;
    // gone (the guard kept the pop from being sent), failed, or asked to end meanwhile
    if (this.s.isClosed) return this.end(kDisconnected);
    if ('error' in o) return this.end(o.error);
    if (this.ending !== undefined) return this.end(this.ending);
    if (this.phase === Phase.First) {
      this.phase = Phase.Registering;
      this.host.countBlocked(1);
      const { db, keys } = this.plan;
      // a push committed before every worker and instance knows would wake nobody: look again then
      void Promise.all(keys.map((k) => this.host.waitKey(db, k, this.wake))).then(() => {
        if (this.phase === Phase.Registering) this.attempt();
      });
      return;
    }
    if (this.again) return this.attempt();
    this.phase = Phase.Waiting;
  }

  private requestEnd(r: Reply): void {
    if (this.phase === Phase.Done) return;
    if (this.phase === Phase.Waiting || this.phase === Phase.Registering) return this.end(r);
    if (this.ending === undefined || r === kDisconnected) this.ending = r;
  }

  /** Leaves unserved: timeout reply, UNBLOCKED error, or nothing (kDisconnected). */
  private end(r: Reply): void {
    const seq = this.seq;
    this.stop();
    this.release(true);
    if (seq !== null) {
      const { stmt, values } = kBlockingSql.withdraw(seq);
      const host = this.host;
      // the keys it leaves that hold elements for other waiters: they may have been told "not first"
      s_exec(this.s, stmt, values, (rows) => {
        for (const row of rows) host.wake(row[0] as number, row[1] as Buffer);
      });
    }
    if (r !== kDisconnected) this.settle(r);
  }

  private finish(reply: Reply | Noted, key: Buffer | undefined, rest: number): void {
    this.stop();
    // the reply is final now: dispatch reports it, and a BLMOVE's push wakes its destination's
    // waiters (only those: this client's earlier holds may wait for this very call)
    const waits = this.host.woken(() => this.settle(reply));
    // more elements than this waiter took: the next waiter's turn
    const next = key !== undefined && rest > 0 ? this.host.wake(this.plan.db, key) : undefined;
    if (next !== undefined) waits.push(next);
    if (this.trying.length === 0 && this.woken.length === 0) return;
    // the push that woke this call answers once what this serve woke was served too (Linked LMOVEs)
    if (waits.length === 0) return this.release(true);
    const done = (): void => this.release(true);
    void Promise.all(waits).then(done, done);
  }

  private stop(): void {
    if (this.phase !== Phase.First) {
      this.host.countBlocked(-1);
      for (const k of this.plan.keys) this.host.unwaitKey(this.plan.db, k, this.wake);
    }
    this.phase = Phase.Done;
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  private settle(r: Reply | Noted): void {
    if (this.s.blocked === this) this.s.blocked = undefined;
    this.reply.settle(r);
  }
}

/** The events' note of a served pop (events.ts delIf): 1 when it took the key's last element. */
export function emptiedNote(rest: number): number {
  return rest === 0 ? 1 : 0;
}

function s_exec(s: Session, stmt: Statement, values: unknown[], done: (rows: Rows) => void): void {
  s.server.store.exec(s, stmt, values, (rows) => {
    done(rows);
    return null;
  });
}
