/**
 * The committed-write hook: one place where every write reports, after Postgres committed it,
 * which keys of which db changed and how, in Redis's keyspace event names (set, del, expired,
 * lpush, rename_from…). Keyspace notifications, blocked clients' wake-ups, CLIENT TRACKING and
 * the read cache listen here instead of in each command (docs/write-hook.md).
 *
 *   client ─run─▶ lane ─commit─▶ reply final ──▶ hook.command(db, spec, argv, reply)
 *                                                   └─ spec.events(emit, db, argv, reply) ─▶ listeners
 *   EXEC (committed) ─────────────────────────────▶ hook.command(…) for each queued command
 *   primary's sweeper ─MessagePort─▶ hook.expired(dbs, keys)
 *   before a write is sent ───────────────────────▶ hook.before(db, spec, argv)
 *   its outcome known (any), before its reply ───▶ hook.after(db, spec, argv)
 *   a listener may hold the writer's reply ───────▶ holdReply(by, promise) → dispatch waits (replyHold)
 *   and the writer's later commands ──────────────▶ holdsLater(s, db, spec, argv) → dispatch holds them
 *
 * One per worker thread. Nobody listening costs a write one branch on `active`: no report, no
 * key list, no allocation is made.
 */
import { RespError, type Reply } from './reply';
import { keysOf, type CommandSpec } from './commands/spec';
import { PendingReply, type Outcome } from './pending-reply';
import { lookupEvents, withNewEvents, type Event } from './key-presence';
import type { Session } from './session';

/**
 * One event. key null: every key of db (FLUSHDB, SWAPDB); db -1 with key null: every key of
 * every db (FLUSHALL). maybe: Redis fires this event only in a state the reply does not show
 * (the key was emptied, existed, had a TTL, or a score changed): our statements do not return
 * that yet (docs/write-hook.md lists the cases), so the event is reported as possible.
 */
export type Emit = (db: number, event: string, key: Buffer | null, maybe: boolean) => void;

/**
 * A write command's events from its line and its (non-error) reply, emitted in Redis's order.
 * note: what its statement returned beside the reply (pending-reply.ts Noted), undefined when the
 * command ran where none is kept: the events function then reports what it cannot know as maybe.
 */
export type EventsOf = (emit: Emit, db: number, argv: Buffer[], reply: Reply, note: Outcome | undefined) => void;

/** The note a command's run result carries once settled (PendingReply), if any. */
export function noteOf(result: unknown): Outcome | undefined {
  return result instanceof PendingReply ? result.note : undefined;
}

/** What a write command's spec declares: one event name for each of its keys on success, or a function. */
export type EventDecl = string | EventsOf;

export interface WriteListener {
  /** after commit */
  committed?: Emit;
  /** before a write command is sent to Postgres */
  before?: (db: number, spec: CommandSpec, argv: Buffer[]) => void;
  /**
   * once a write command's outcome is known — committed, failed, or unknown (connection lost) —
   * and before its reply is sent: the read cache's bump. Every `before` is followed by one.
   */
  after?: (db: number, spec: CommandSpec, argv: Buffer[]) => void;
}

export class WriteHook {
  /** a committed listener is registered: the only thing a write reads when nobody listens */
  active = false;
  /** a before listener is registered */
  beforeActive = false;
  /** an after listener is registered */
  afterActive = false;
  /** a listener wants key presence (`new`, `keymiss`, lazy `expired`): dispatch probes keyed commands (key-presence.ts) */
  presence = false;
  /** the sweeper's expired keys are being reported (every listening worker hears them; one publishes) */
  sweeping = false;
  private committedList: Emit[] = [];
  private beforeList: NonNullable<WriteListener['before']>[] = [];
  private afterList: NonNullable<WriteListener['after']>[] = [];

  /** onListening: told when `active` changes (the worker tells the primary, whose sweeper then reports keys) */
  constructor(private readonly onListening: (active: boolean) => void = () => undefined) {}

  /** Registers a listener; returns the function that removes it. */
  listen(l: WriteListener): () => void {
    if (l.committed) this.committedList = [...this.committedList, l.committed];
    if (l.before) this.beforeList = [...this.beforeList, l.before];
    if (l.after) this.afterList = [...this.afterList, l.after];
    this.update();
    return () => {
      this.committedList = this.committedList.filter((f) => f !== l.committed);
      this.beforeList = this.beforeList.filter((f) => f !== l.before);
      this.afterList = this.afterList.filter((f) => f !== l.after);
      this.update();
    };
  }

  private update(): void {
    const was = this.active;
    this.active = this.committedList.length > 0;
    this.beforeActive = this.beforeList.length > 0;
    this.afterActive = this.afterList.length > 0;
    if (was !== this.active) this.onListening(this.active);
  }

  private readonly emit: Emit = (db, event, key, maybe) => {
    // a copy-on-write array: a listener that unsubscribes meanwhile does not shift the loop
    for (const l of this.committedList) l(db, event, key, maybe);
  };

  /**
   * The client id of the write being reported while its events are emitted, else 0 (the
   * sweeper): CLIENT TRACKING's NOLOOP skips the writer's own invalidations.
   */
  writer = 0;

  /**
   * A command's reply became final after its write committed (direct command, or EXEC's queued one).
   * status: its keys' presence before it ran (key-presence.ts), when probed; by: the writer's client id.
   */
  command(db: number, spec: CommandSpec, argv: Buffer[], reply: Reply, note?: Outcome, status?: Map<string, number>, by = 0): void {
    const decl = spec.events;
    if (!this.active || (status === undefined && (decl === undefined || reply instanceof RespError))) return;
    this.writer = by;
    try {
      if (status !== undefined) return this.withPresence(db, spec, argv, reply, note, status);
      if (decl === undefined || reply instanceof RespError) return;
      if (typeof decl !== 'string') return decl(this.emit, db, argv, reply, note);
      const keys = keysOf(spec, argv);
      if (keys !== undefined) for (const k of keys) this.emit(db, decl, k, false);
    } finally {
      this.writer = 0;
    }
  }

  /** The lookup events first, then the command's own with `new` where it created a key. */
  private withPresence(db: number, spec: CommandSpec, argv: Buffer[], reply: Reply, note: Outcome | undefined,
    status: Map<string, number>): void {
    lookupEvents(this.emit, db, spec, argv, reply, status);
    const decl = spec.events;
    if (decl === undefined || reply instanceof RespError) return;
    const events: Event[] = [];
    const collect: Emit = (d, e, k, m) => { events.push([d, e, k, m]); };
    if (typeof decl !== 'string') decl(collect, db, argv, reply, note);
    else for (const k of keysOf(spec, argv) ?? []) collect(db, decl, k, false);
    withNewEvents(events, db, status, this.emit);
  }

  /**
   * Set by the blocking commands while somebody blocks anywhere: whether a command may wake a
   * blocked client, so that its client's later commands wait for its reply (dispatch; push-gate.ts).
   */
  holdsLater: ((s: Session, db: number, spec: CommandSpec, argv: Buffer[]) => boolean) | undefined = undefined;

  /** client id → what its reply waits for: a push's waits for the blocked clients it woke (blocking/waits.ts) */
  private readonly holds = new Map<number, Promise<unknown>>();

  /**
   * A committed listener asks that the reply of client `by` (the writer being reported) leave
   * only once `until` settled. Several holds of one client add up; each goes when settled.
   */
  holdReply(by: number, until: Promise<unknown>): void {
    if (by === 0) return;
    const prev = this.holds.get(by);
    const all = prev === undefined ? until : Promise.all([prev, until]);
    this.holds.set(by, all);
    void all.then(() => { if (this.holds.get(by) === all) this.holds.delete(by); });
  }

  /** What client `by`'s reply must wait for, if anything (dispatch, once the reply is final and reported). */
  replyHold(by: number): Promise<unknown> | undefined {
    return this.holds.size === 0 ? undefined : this.holds.get(by);
  }

  /** A write command is about to be sent. */
  before(db: number, spec: CommandSpec, argv: Buffer[]): void {
    for (const l of this.beforeList) l(db, spec, argv);
  }

  /** A write command's outcome is known (whatever it is); its reply is not sent yet. */
  after(db: number, spec: CommandSpec, argv: Buffer[]): void {
    for (const l of this.afterList) l(db, spec, argv);
  }

  /** The sweeper deleted these expired keys (Redis's `expired`). */
  expired(dbs: readonly number[], keys: readonly Buffer[]): void {
    if (!this.active) return;
    this.sweeping = true;
    try {
      for (let i = 0; i < keys.length; i++) this.emit(dbs[i], 'expired', keys[i], false);
    } finally {
      this.sweeping = false;
    }
  }
}
