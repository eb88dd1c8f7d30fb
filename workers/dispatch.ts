/**
 * One parsed command of a connection, from argv to its place in the reply queue:
 *
 *   argv ─▶ table.resolve ─▶ NOAUTH? ─▶ NOPERM? ─▶ inside MULTI: queue (+QUEUED) ─▶ spec.run ─┬─ value ────▶ reply now
 *                                                                                  ├─ PendingReply ─▶ slot, filled by the lane
 *                                                                                  └─ Promise ──▶ slot, filled later
 *
 * This is also where a command's reply becomes final after its commit, so the committed-write
 * hook is told here (core/engine/write-hook.ts): with the db the command ran in, which a later
 * pipelined SELECT may have changed by then. With nobody listening it costs one branch.
 */
import { Err } from '../core/engine/resp-errors';
import { RespError, isPromise, type Reply } from '../core/engine/reply';
import type { CommandSpec, RunResult } from '../core/engine/commands/spec';
import { PendingReply } from '../core/engine/pending-reply';
import { OpKind } from '../core/engine/ops';
import type { Session } from '../core/engine/session';
import { kTransactionControl } from '../core/engine/commands/transactions';
import { kFlagMayReplicate, kFlagNoAuth, kFlagNoMulti, kFlagReadonly, kFlagWrite, kFlagsModify } from '../core/engine/commands/flags';
import { kQueued } from '../core/engine/shared-replies';
import type { WriteHook } from '../core/engine/write-hook';
import type { WorkerStats } from '../core/messages';
import type { ReplyQueue, ReplySlot } from './reply-queue';
import { kPubsubContext, pubsubOnly } from '../core/engine/commands/pubsub/subscriptions';
import { aclRefusal } from '../core/acl/enforce';
import { PresenceReply, probePresence, statuses, type Presence } from '../core/engine/key-presence';
import type { Outcome } from '../core/engine/pending-reply';
import { clientCaching as kClientCaching } from '../core/engine/commands/connection/client/tracking';
import { CallHold, isScriptCall } from './script-join';
import type { BulkSink } from '../core/engine/cache/arena';

/** What dispatch needs of the worker (WorkerState). */
export interface DispatchState {
  readonly stats: WorkerStats;
  readonly writeHook: WriteHook;
  /** started: performance.now() when the command's bytes arrived, or -1 for an immediate command */
  record(spec: CommandSpec, started: number, result: Reply): void;
  countError(e: RespError): void;
  log(line: string): void;
}

/** What dispatch needs of the connection (Client). */
export interface DispatchClient extends Session {
  readonly state: DispatchState;
  readonly replies: ReplyQueue;
  /** closing: commands read after QUIT or an error that closes are dropped */
  readonly closing: boolean;
  /** Redis's authRequired(): only no_auth commands run */
  readonly mustAuth: boolean;
  /** performance.now() when the command's bytes arrived */
  readonly chunkAt: number;
  lastCommand: string;
  /** commands read while a script call of this client runs (holdWhile) */
  held: Buffer[][] | undefined;
  /** set when a script call made the hold: later script calls may join it (./script-join.ts) */
  calls: CallHold | undefined;
  unackedWrites: number;
  replySink: BulkSink | undefined;
  /** a slot was filled: encode the finished prefix and write soon */
  replied(): void;
}

export function dispatch(c: DispatchClient, argv: Buffer[]): void {
  if (c.closing) return;
  if (c.held !== undefined && (c.calls?.held !== c.held || !c.calls.joinsNow(argv))) {
    c.held.push(argv);
    return;
  }
  execute(c, argv);
}

/** the client and command spec.run is running for (dispatch's own, not EXEC's queued ones): holdWhile reads it */
let runningFor: DispatchClient | undefined;
let runningSpec: CommandSpec | undefined;

function execute(c: DispatchClient, argv: Buffer[]): void {
  const state = c.state;
  const stats = state.stats;
  const skipThis = c.skipNext;
  c.skipNext = false;
  const resolved = c.server.commands.resolve(argv);
  if (resolved instanceof RespError) {
    if (c.multi !== undefined) c.multiAborted = true;
    return refuse(c, resolved, c.replyOff || skipThis);
  }
  const spec = resolved;
  if (c.mustAuth && (spec.flagBits & kFlagNoAuth) === 0) return refuse(c, Err.noAuth, c.replyOff || skipThis);
  // ACL: a user with +@all ~* &* (the default one) costs this one read (core/acl/enforce.ts)
  if (!c.user.full) {
    const denied = aclRefusal(c, spec, argv);
    if (denied !== undefined) {
      if (c.multi !== undefined) c.multiAborted = true;
      return refuse(c, denied, c.replyOff || skipThis);
    }
  }
  // RESP2 subscribed mode: a reply would be mistaken for a message (RESP3 tells pushes apart)
  if (c.proto === 2 && c.subscriptions?.active === true && !kPubsubContext.has(spec.name)) {
    if (c.multi !== undefined) c.multiAborted = true;
    return refuse(c, pubsubOnly(spec.name), c.replyOff || skipThis);
  }
  if (c.multi !== undefined) {
    if ((spec.flagBits & kFlagNoMulti) !== 0) {
      // refused like Redis's processCommand, and the transaction is flagged: EXEC answers EXECABORT
      c.multiAborted = true;
      return refuse(c, Err.notInMulti, c.replyOff || skipThis);
    }
    if (!kTransactionControl.has(spec.name)) {
      // queued, not run: EXEC runs the block as one Postgres transaction
      c.multi.push({ spec, argv });
      c.replies.done(kQueued, c.replyOff || skipThis, c.proto);
      return;
    }
  }
  c.lastCommand = spec.name;
  const started = c.chunkAt;
  const db = c.db;
  const hook = state.writeHook;
  if (hook.beforeActive && (spec.flagBits & kFlagWrite) !== 0) hook.before(db, spec, argv);
  // `new` / `keymiss` / lazy `expired` on: the keys' presence, queued on the lane ahead of the command
  const probe = hook.presence ? probePresence(c, db, spec, argv) : undefined;
  const tracking = c.tracking;
  if (tracking !== undefined) c.server.tracker.beforeRun(c, spec, argv);
  // a write to a key somebody blocks on: the client's later commands wait for its reply, which
  // leaves after the clients it serves (core/engine/commands/blocking/push-gate.ts)
  const gate = hook.holdsLater !== undefined && hook.holdsLater(c, db, spec, argv) ? holdLater(c) : undefined;
  let result: RunResult;
  // gated: its later commands wait for its reply, so none may join it
  if (gate === undefined) {
    runningFor = c;
    runningSpec = spec;
  }
  // its reply goes into the writer now if it is known now: a GET's cache hit is copied there
  // straight from the arena (Session.replySink), with nothing to report it to or to send first
  if (!c.replyOff && !skipThis && !hook.active && tracking === undefined) c.replySink = c.replies.writerNow();
  try {
    result = spec.run(c, argv);
  } catch (e) {
    state.log(`command ${spec.name} failed: ${(e as Error).stack ?? e}`);
    result = new RespError(`ERR internal error: ${(e as Error).message}`);
  }
  runningFor = runningSpec = undefined;
  c.replySink = undefined;
  // CLIENT CACHING yes|no lasts one command, or until EXEC (Redis's resetClient)
  if (tracking !== undefined && spec !== kClientCaching && c.multi === undefined) tracking.caching = false;
  // after run: CLIENT REPLY OFF silences its own reply, CLIENT REPLY ON answers
  const silent = c.replyOff || skipThis;
  if (result instanceof PendingReply) {
    if (!result.done) {
      const slot = c.replies.open(silent, c.proto, isShortOp(result));
      if (owesWrite(spec)) c.unackedWrites++;
      const pending = result;
      result.listener = gate === undefined ? (v) => completed(c, slot, v, spec, started, db, argv, pending, probe)
        : (v) => gate(completed(c, slot, v, spec, started, db, argv, pending, probe));
      return;
    }
    // answered while being queued (Postgres down): an immediate reply
    result = result.value;
  } else if (isPromise<Reply>(result)) {
    const slot = c.replies.open(silent, c.proto);
    if (owesWrite(spec)) c.unackedWrites++;
    // (not gate?.(completed(…)): an optional call skips its arguments when gate is undefined)
    result.then((v) => {
      const filled = completed(c, slot, v, spec, started, db, argv, undefined, probe);
      if (gate !== undefined) gate(filled);
    }, (e: Error) => {
      const filled = completed(c, slot, new RespError(`ERR ${e.message}`), spec, started, db, argv, undefined, probe);
      if (gate !== undefined) gate(filled);
    });
    return;
  }
  gate?.(undefined);
  // immediate commands: recorded as taking no time (~1 µs); a clock read per command cost 2-3% of PING throughput
  state.record(spec, -1, result);
  if (hook.afterActive && (spec.flagBits & kFlagsModify) !== 0) hook.after(db, spec, argv);
  if (hook.active) {
    report(hook, db, spec, argv, result, undefined, probe, c.id);
    const fence = c.server.tracker.takeFence(c.id);
    if (fence !== undefined) {
      const slot = c.replies.open(silent, c.proto);
      slot.after = c.server.tracker.takeHeld(c.id);
      afterFence(c, slot, result, fence);
      return;
    }
    c.replies.done(result, silent, c.proto);
    const own = c.server.tracker.takeHeld(c.id);
    if (own !== undefined) for (const f of own) c.replies.done(f, false, c.proto);
    return;
  }
  c.replies.done(result, silent, c.proto);
}

/**
 * A GET/MGET, plain SET/MSET or INCR on the client's lane: one statement of a run, answered in one
 * Postgres round trip (or at once when Postgres is down). Replies before it may wait for it
 * (ReplyQueue.headOnLane); a blocked pop's or XREAD BLOCK's PendingReply, a StmtOp (KEYS, FLUSHALL)
 * or a transaction may take long, so nothing waits for those.
 */
function isShortOp(r: PendingReply): boolean {
  const kind = (r as Partial<{ kind: OpKind }>).kind;
  return kind !== undefined && kind <= OpKind.Incr;
}

/** A command whose reply the read cache waits for before answering this client again (Session.unackedWrites). */
function owesWrite(spec: CommandSpec): boolean {
  return (spec.flagBits & kFlagReadonly) === 0 || (spec.flagBits & kFlagMayReplicate) !== 0;
}

function refuse(c: DispatchClient, e: RespError, silent: boolean): void {
  c.state.stats.rejectedCalls++;
  c.state.countError(e);
  c.replies.done(e, silent, c.proto);
}

/** Fills the slot, now or (returned) once what the reply waits for settled. */
function completed(c: DispatchClient, slot: ReplySlot, value: Reply, spec: CommandSpec, started: number, db: number,
  argv: Buffer[], pending?: PendingReply, probe?: Presence): PromiseLike<unknown> | undefined {
  const state = c.state;
  state.record(spec, started, value);
  const hook = state.writeHook;
  if (hook.afterActive && (spec.flagBits & kFlagsModify) !== 0) hook.after(db, spec, argv);
  // counted when its slot opened: the read cache may answer this client again once none is owed
  if (owesWrite(spec)) c.unackedWrites--;
  if (hook.active) {
    report(hook, db, spec, argv, value, pending?.note, probe, c.id, pending);
    // its own invalidations (EXEC's and a script's too) go right behind its reply, as in Redis 7.0
    slot.after = c.server.tracker.takeHeld(c.id);
    // a push that woke blocked clients answers once they were served (docs/blocking.md), and a
    // write seen by tracking clients of other workers once their invalidations were written
    const hold = hook.replyHold(c.id);
    const fence = c.server.tracker.takeFence(c.id);
    if (hold !== undefined || fence !== undefined) {
      return afterFence(c, slot, value, hold === undefined ? fence! : fence === undefined ? hold : Promise.all([hold, fence]));
    }
  }
  c.replies.fill(slot, value);
  c.replied();
  return undefined;
}

/** holdWhile until the returned function's promise (the command's reply filled) settles; undefined when already held. */
function holdLater(c: DispatchClient): ((filled: PromiseLike<unknown> | undefined) => void) | undefined {
  if (c.held !== undefined) return undefined;
  let open!: () => void;
  holdWhile(c, new Promise<void>((r) => (open = r)));
  return (filled) => {
    if (filled === undefined) open();
    else filled.then(open, open);
  };
}

/**
 * The reply waits for what Redis does before it: blocked clients the write served (the hold
 * settles once they were), and CLIENT TRACKING invalidations for tracking clients on another
 * worker thread (tracker.ts publish: that worker has queued them; the bus gives up after 1 s).
 */
function afterFence(c: DispatchClient, slot: ReplySlot, value: Reply, fence: PromiseLike<unknown>): PromiseLike<unknown> {
  const release = (): void => {
    c.replies.fill(slot, value);
    c.replied();
  };
  return fence.then(release, release);
}

/** To the hook, with the keys' presence once the probe (queued first, so normally settled) answered. */
function report(hook: WriteHook, db: number, spec: CommandSpec, argv: Buffer[], value: Reply, note: Outcome | undefined,
  probe: Presence | undefined, by: number, pending?: PendingReply): void {
  if (probe === undefined) return hook.command(db, spec, argv, value, note, undefined, by);
  // a blocking pop served after it blocked knows its keys' presence then
  if (pending instanceof PresenceReply && pending.status !== undefined) return hook.command(db, spec, argv, value, note, pending.status, by);
  if (probe.op.done) return hook.command(db, spec, argv, value, note, statuses(probe), by);
  // answered without the lane (an argument error, a script's connection): the probe still ran
  probe.op.listener = () => { if (hook.active) hook.command(db, spec, argv, value, note, statuses(probe), by); };
}

/**
 * EVAL/FCALL run on a connection of their own, not the client's lane: until `done` settles, the
 * client's later commands wait, then run in the order they came (Redis runs a client's commands
 * one after another; a GET pipelined behind a script must see its writes). A script call's hold
 * (`queued` given, run by dispatch itself) lets the client's next script calls join it once
 * `queued` settled: they are queued behind it in order (./script-join.ts).
 */
export function holdWhile(c: DispatchClient, done: PromiseLike<unknown>, queued?: PromiseLike<unknown>): void {
  const joins = queued !== undefined && runningFor === c && isScriptCall(runningSpec!.name);
  if (c.held !== undefined) {
    // a script call that joined (CallHold.joinsNow): the hold lasts until it answered too
    if (joins && c.calls?.held === c.held) c.calls.add(done, queued);
    // otherwise a command running inside one that holds (a script call EXEC runs, which awaits
    // it); the outer hold ends later, and a second one would drop what the first has kept
    return;
  }
  const held: Buffer[][] = c.held = [];
  const release = (): void => {
    const held = c.held ?? [];
    c.held = undefined;
    for (let i = 0; i < held.length; i++) {
      // a released command that holds again (another script) keeps the rest behind it
      const again = c.held as Buffer[][] | undefined;
      if (again !== undefined) { again.push(...held.slice(i)); break; }
      dispatch(c, held[i]);
    }
    // a reply known at once (QUIT's +OK, PING) went straight into the writer, which onData flushes
    // after a read; a release after the flush of the call's reply (it waited for the clients the
    // call's writes woke) left it there: BullMQ's Worker.close hung on its QUIT
    if (held.length > 0) c.replied();
  };
  // and for the blocked clients what it ran woke (a script's undeclared keys: push-gate.ts cannot
  // see them before it runs; its writes' reports took their holds before `done` settled). Script
  // calls that joined the hold (./script-join.ts) are queued before this settles: a joined call
  // does not wait for the clients the call before it woke on another instance (docs/blocking.md).
  const settled = (): void => {
    const woken = c.state.writeHook.replyHold(c.id);
    if (woken === undefined) release();
    else woken.then(release, release);
  };
  if (!joins) {
    done.then(settled, settled);
    return;
  }
  c.calls = new CallHold(held, c, settled, execute);
  c.calls.add(done, queued);
}
