/**
 * CLIENT TRACKING for one worker thread (docs/tracking.md): which of its connections read which
 * keys, and the invalidations they get when a key changes anywhere.
 *
 *   read by a tracking client ─dispatch─▶ remember(key → id)           (before the read is sent)
 *   write committed here ─hook─▶ invalidate(key, writer) ─▶ own clients (push / redirect)
 *                          └──▶ bus shard channel "\0postresp:tracking" ─▶ other workers, instances
 *   sweeper's expired (worker 0) ─▶ the same; FLUSHDB/FLUSHALL/SWAPDB ─▶ a null invalidation to all
 *   BCAST: keys matching a prefix collect for one event-loop turn, one message per prefix
 *
 * Costs: with no tracking client in the process or another instance, the hook has no listener
 * from here and dispatch reads one field per command. A worker with a tracking client subscribes
 * to the bus channel, and every worker then publishes each committed write's keys to it.
 */
import { BroadcastChannel } from 'node:worker_threads';
import type { MessageBus, Subscriber } from '../../bus/bus';
import { interestKey, kBusReconnected } from '../../bus/interest';
import { ReplyWriter } from '../../../protocol/writer';
import { Raw, RespPush, writeReply, type Reply } from '../reply';
import { keysOf, type CommandSpec } from '../commands/spec';
import { kFlagReadonly } from '../commands/flags';
import type { WriteHook } from '../write-hook';
import type { ClientTracking, TrackedClient } from './client-tracking';
import { TrackingTable } from './tracking-table';

/** the script commands: their declared keys are tracked when the script reads (scriptRead) */
const kScripts: ReadonlySet<string> = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);
const kKeysChannel = Buffer.from('\0postresp:tracking');
const kFlushChannel = Buffer.from('\0postresp:tracking-flush');
/** an empty counted message behind a turn's invalidations: its answers say they were delivered (tickFence) */
const kFenceChannel = Buffer.from('\0postresp:tracking-fence');
const kEmpty = Buffer.alloc(0);
const kInvalidate = Buffer.from('invalidate');
const kMessage = Buffer.from('message');
const kRedisChannel = Buffer.from('__redis__:invalidate');
const kRedirBroken = Buffer.from('tracking-redir-broken');
/** Redis sends a flush's null in the tracking client's protocol (shared.null[c->resp]), even to a target of the other */
const kNull: Record<2 | 3, Raw> = { 2: new Raw(Buffer.from('$-1\r\n')), 3: new Raw(Buffer.from('_\r\n')) };

/**
 * Between workers of one process: an invalidation for a redirect target elsewhere (w: the sending
 * worker, seq: its number there, answered by `acked` or `bounced`), and target liveness.
 */
type RedirectMessage =
  | { to: number; from: number; keys: Uint8Array[] | null; nullProto: 2 | 3; w: number; seq: number }
  | { watch: number }
  | { gone: number }
  /** an invalidation reached the target's worker after the target closed: `from`'s redirect is broken now */
  | { bounced: number; from: number; w: number; seq: number }
  /** the target's worker wrote these invalidations of worker w to their sockets */
  | { acked: number[]; w: number };

/** clients that closed, remembered to bounce invalidations still on their way (at most this many) */
const kDeparted = 1024;
/** a redirect message not answered in this long (its target's worker gone) is no longer waited for, as the bus's asks */
const kAckTimeoutMs = 1000;

interface PrefixState {
  /** client ids with this BCAST prefix */
  readonly clients: Set<number>;
  /** keys changed this turn → the client that changed it (0: several, or another worker's) */
  readonly changed: Map<string, number>;
}

export interface TrackingStats { clients: number; keys: number; items: number; prefixes: number }

export class Tracker implements Subscriber {
  private readonly table: TrackingTable;
  private readonly prefixes = new Map<string, PrefixState>();
  /** this worker's connections with tracking on */
  private readonly tracking = new Set<TrackedClient>();
  private othersWant = false;
  private unlisten: (() => void) | undefined = undefined;
  private subscribed = false;
  /** true while publishing: the bus hands this worker's own subscriber the message too */
  private publishing = false;
  private bcastQueued = false;
  private readonly redirects: BroadcastChannel;
  /** clients of this worker that another worker's tracking client redirects to */
  private readonly targets = new Set<number>();
  /** targets of this worker that closed (insertion order: the oldest go first) */
  private readonly departed = new Set<number>();
  private readonly writer = new ReplyWriter(256);
  /**
   * frames for the connection whose write is being reported, by its id: sent right behind its
   * reply (takeHeld). By id: EXEC reports before its reply is final, other clients' replies may
   * settle in between.
   */
  private readonly held = new Map<number, Raw[]>();
  /** the writer whose command's report published invalidations, until dispatch asks (takeFence) */
  private fenced = 0;
  /**
   * Settles once every other worker of the process holding a tracking client has delivered the
   * invalidations published this turn: one counted publish on kFenceChannel at the end of the turn,
   * after them (each path is FIFO). The writers of the turn wait for it together.
   */
  private tickFence: Promise<void> | undefined = undefined;
  /** redirect messages to other workers (send) not yet answered: seq → Date.now() when sent, in seq order */
  private readonly unacked = new Map<number, number>();
  private redirectSeq = 0;
  /** fences waiting until the redirects sent before them were answered (redirectsDone) */
  private ackWaits: { upTo: number; resolve: () => void }[] = [];
  private ackTimer: NodeJS.Timeout | undefined = undefined;
  /** target side: redirected invalidations written this turn, to flush and then answer (onRedirect) */
  private readonly redirected = new Set<TrackedClient>();
  private readonly acksOut = new Map<number, number[]>();
  private acksQueued = false;

  constructor(private readonly hook: WriteHook, private readonly bus: MessageBus,
    private readonly clients: ReadonlyMap<number, TrackedClient>, private readonly workerIndex: number,
    runId: string, limit: number, private readonly workers: number) {
    this.table = new TrackingTable(perWorker(limit, workers));
    bus.hide(interestKey('s', kKeysChannel));
    bus.hide(interestKey('s', kFlushChannel));
    bus.hide(interestKey('s', kBusReconnected));
    bus.hide(interestKey('s', kFenceChannel));
    bus.watchInterest(interestKey('s', kKeysChannel), (others) => {
      this.othersWant = others;
      this.update();
    });
    this.redirects = new BroadcastChannel(`postresp-tracking:${runId}`);
    this.redirects.onmessage = (e) => this.onRedirect((e as { data: RedirectMessage }).data);
    (this.redirects as unknown as { unref(): void }).unref();
  }

  close(): void {
    this.redirects.close();
    this.stopped = true;
    this.unacked.clear();
    this.settleAcks();
  }

  private stopped = false;

  get stats(): TrackingStats {
    return { clients: this.tracking.size, keys: this.table.size, items: this.table.items, prefixes: this.prefixes.size };
  }

  /** tracking-table-max-keys changed: applies now (evicting), as Redis's next cron does */
  setLimit(limit: number): void {
    this.table.limit = perWorker(limit, this.workers);
    this.evict();
  }

  // ---------------------------------------------------------------- turning it on and off

  /**
   * CLIENT TRACKING ON, options checked: Redis's enableTracking. Resolves once every worker and
   * instance publishes writes to this worker (undefined: they did already).
   */
  enable(c: TrackedClient, opts: { redirect: number; redirectLocal: boolean; bcast: boolean; optin: boolean; optout: boolean;
    noloop: boolean; prefixes: Buffer[] }, fresh: ClientTracking): Promise<void> | undefined {
    const t = c.tracking ?? fresh;
    c.tracking = t;
    t.broken = false;
    t.redirectGone = false;
    t.redirect = opts.redirect;
    t.redirectLocal = opts.redirectLocal;
    t.optin = opts.optin;
    t.optout = opts.optout;
    t.noloop = opts.noloop;
    t.bcast = opts.bcast;
    if (opts.bcast) {
      const list = opts.prefixes.length === 0 ? [kEmpty] : opts.prefixes;
      for (const p of list) this.addPrefix(c.id, t, p.toString('latin1'));
    }
    if (opts.redirect !== 0 && !opts.redirectLocal) this.redirects.postMessage({ watch: opts.redirect } satisfies RedirectMessage);
    this.tracking.add(c);
    return this.update();
  }

  /** CLIENT TRACKING OFF, RESET, a closed connection: Redis's disableTracking. */
  disable(c: TrackedClient): void {
    const t = c.tracking;
    if (t === undefined) return;
    c.tracking = undefined;
    for (const p of t.prefixes) {
      const s = this.prefixes.get(p);
      if (s !== undefined && s.clients.delete(c.id) && s.clients.size === 0) this.prefixes.delete(p);
    }
    this.tracking.delete(c);
    void this.update();
  }

  private addPrefix(id: number, t: ClientTracking, p: string): void {
    t.prefixes.add(p);
    let s = this.prefixes.get(p);
    if (s === undefined) this.prefixes.set(p, s = { clients: new Set(), changed: new Map() });
    s.clients.add(id);
  }

  /** Listens to the write hook while any client tracks anywhere; subscribes while one tracks here. */
  private update(): Promise<void> | undefined {
    const here = this.tracking.size > 0;
    const wanted = here || this.othersWant;
    if (wanted && this.unlisten === undefined) this.unlisten = this.hook.listen({ committed: this.onCommitted });
    else if (!wanted && this.unlisten !== undefined) {
      this.unlisten();
      this.unlisten = undefined;
    }
    if (here && !this.subscribed) {
      this.subscribed = true;
      return Promise.all([this.bus.subscribe('s', kKeysChannel, this), this.bus.subscribe('s', kFlushChannel, this),
        this.bus.subscribe('s', kBusReconnected, this), this.bus.subscribe('s', kFenceChannel, this)]).then(() => undefined);
    }
    if (!here && this.subscribed) {
      // every id left in the table is of a client that stopped tracking: nothing to send it
      this.subscribed = false;
      this.bus.unsubscribe('s', kKeysChannel, this);
      this.bus.unsubscribe('s', kFlushChannel, this);
      this.bus.unsubscribe('s', kBusReconnected, this);
      this.bus.unsubscribe('s', kFenceChannel, this);
      this.table.clear();
    }
    return undefined;
  }

  // ---------------------------------------------------------------- reads

  /**
   * Before a command of a tracking client runs: the keys a read-only command (or EXEC's queued
   * ones) will fetch are remembered before its statement is sent, so a write committed after the
   * read's snapshot always finds them (its invalidation then follows the read's reply).
   */
  beforeRun(c: { readonly id: number; tracking?: ClientTracking; multi?: { spec: CommandSpec; argv: Buffer[] }[] }, spec: CommandSpec,
    argv: Buffer[]): void {
    const t = c.tracking!;
    if (t.bcast) return;
    // OPTIN remembers only after CLIENT CACHING yes, OPTOUT all but after CLIENT CACHING no
    if ((t.optin && !t.caching) || (t.optout && t.caching)) return;
    if (spec.name === 'pfcount' && argv.length === 2) (this.table.has(argv[1], c.id) ? this.countTracked : this.countFresh).add(argv[1]);
    // EVAL_RO and FCALL_RO are flagged readonly: a script is tracked by what it calls
    if (kScripts.has(spec.name)) t.script = { spec, argv };
    else if ((spec.flagBits & kFlagReadonly) !== 0) this.rememberKeys(c.id, spec, argv);
    else if (spec.name === 'exec' && c.multi !== undefined) {
      for (const q of c.multi) if ((q.spec.flagBits & kFlagReadonly) !== 0) this.rememberKeys(c.id, q.spec, q.argv);
    }
  }

  /**
   * A script of a tracking client called a read-only command: its declared keys are tracked, as
   * Redis 7.0 does (the keys the command itself read are not), once per call.
   */
  scriptRead(c: { readonly id: number; tracking?: ClientTracking }): void {
    const run = c.tracking?.script;
    if (run === undefined) return;
    c.tracking!.script = undefined;
    this.rememberKeys(c.id, run.spec, run.argv);
  }

  private rememberKeys(id: number, spec: CommandSpec, argv: Buffer[]): void {
    const keys = keysOf(spec, argv);
    if (keys === undefined || keys.length === 0) return;
    for (const k of keys) this.table.remember(k, id);
    if (this.table.limit !== 0 && this.table.size > this.table.limit) this.evict();
  }

  private evict(): void {
    for (const [key, ids] of this.table.overflow()) this.sendKey(key, ids, 0);
  }

  // ---------------------------------------------------------------- writes

  private readonly onCommitted = (_db: number, event: string, key: Buffer | null, _maybe: boolean): void => {
    if (key === null) {
      // FLUSHDB, FLUSHALL (db -1), SWAPDB: every key of a db changed. SWAPDB reports both dbs; one null is enough
      if (event === 'swapdb' && this.swapSeen) { this.swapSeen = false; return; }
      this.swapSeen = event === 'swapdb';
      this.flushed(event === 'flushall');
      this.publish(kFlushChannel, event === 'flushall' ? kFlushAll : kEmpty);
      return;
    }
    // the sweeper tells every listening worker: worker 0 speaks for the process
    if (event === 'expired' && this.workerIndex !== 0) return;
    if (event === 'modified') this.counted(key, this.hook.writer);
    else this.invalidate(key, this.hook.writer);
    this.publish(kKeysChannel, key);
  };

  private swapSeen = false;

  /** To the other workers and instances; the writer's reply will wait for the turn's fence (takeFence). */
  private publish(channel: Buffer, message: Buffer): void {
    if (!this.othersWant) return;
    this.publishing = true;
    try {
      this.bus.publish(channel, message, true);
    } finally {
      this.publishing = false;
    }
    this.fenced = this.hook.writer;
  }

  /**
   * What the reply of client id's command just reported must wait for (dispatch, after
   * hook.command): the turn's fence when it published invalidations, else undefined. Another
   * worker holding a tracking client answers the fence once it has written the turn's
   * invalidations to its clients (deliver), so the writer's reply leaves after them (Redis's
   * order). With no tracking client on another worker the fence's counted publish has no holder
   * and settles at the end of the turn. One counted publish a turn, not one a key: a counted
   * publish per SET (a Promise, an ask, its answer) halved `-P 16` SET throughput.
   */
  takeFence(id: number): PromiseLike<void> | undefined {
    if (this.fenced !== id || id === 0) return undefined;
    this.fenced = 0;
    return (this.tickFence ??= new Promise<void>((resolve) => queueMicrotask(() => {
      this.tickFence = undefined;
      const redirected = this.redirectsDone();
      const delivered = this.othersWant ? this.bus.publishCounted(kFenceChannel, kEmpty, true) : 0;
      const others = typeof delivered === 'number' ? undefined : delivered;
      const all = redirected === undefined ? others : others === undefined ? redirected : Promise.all([redirected, others]);
      if (all === undefined) resolve();
      else all.then(() => resolve(), () => resolve());
    })));
  }

  /**
   * Settles once every redirect message this worker sent so far was answered: the target's worker
   * wrote it to the target's socket (or bounced it); undefined when none is outstanding. A fence
   * waits for it, so a REDIRECT target on another worker has its invalidation before the writer's
   * reply (docs/tracking.md, "The staleness bound").
   */
  private redirectsDone(): Promise<void> | undefined {
    if (this.unacked.size === 0) return undefined;
    const upTo = this.redirectSeq;
    return new Promise<void>((resolve) => this.ackWaits.push({ upTo, resolve }));
  }

  /** Resolves the waits whose redirects were all answered; stops the timer when nothing is left. */
  private settleAcks(): void {
    const first = this.unacked.keys().next();
    const low = first.done === true ? Infinity : first.value;
    if (this.ackWaits.length > 0) {
      const left: { upTo: number; resolve: () => void }[] = [];
      for (const w of this.ackWaits) if (w.upTo < low) w.resolve(); else left.push(w);
      this.ackWaits = left;
    }
    if (this.unacked.size === 0 && this.ackTimer !== undefined) {
      clearInterval(this.ackTimer);
      this.ackTimer = undefined;
    }
  }

  private readonly expireAcks = (): void => {
    const old = Date.now() - kAckTimeoutMs;
    for (const [seq, at] of this.unacked) {
      if (at >= old) break;
      this.unacked.delete(seq);
    }
    this.settleAcks();
  };

  /**
   * The bus: another worker's or instance's committed write. The clients told are written to at
   * once, before the bus answers the writer's worker (right after this returns), which then sends
   * the writer's reply: the invalidation reaches the socket first even if this thread is
   * descheduled between the two (with the flush left to the end of the turn, 5 of 40 writers in
   * test/e2e/tracking.test.ts had their reply first on a loaded machine).
   */
  deliver(_kind: 'm' | 's', channel: Buffer, message: Buffer): boolean {
    if (this.publishing) return true;
    const fence = channel.equals(kFenceChannel);
    // the fence closes the writer's turn: BCAST clients get the turn's keys now, not next turn,
    // and the answer waits for the redirects to other workers those invalidations made
    if (fence && !this.bcastQueued) return this.deferFence();
    const told: TrackedClient[] = [];
    this.told = told;
    try {
      if (fence) this.broadcast();
      else if (channel.equals(kFlushChannel)) this.flushed(message.equals(kFlushAll));
      // the bus's link to the other instances was down: their invalidations meanwhile were lost, so
      // every tracking client flushes everything (a null invalidation), as after a FLUSHALL
      else if (channel.equals(kBusReconnected)) this.flushed(false);
      else this.invalidate(message, 0);
    } finally {
      this.told = undefined;
    }
    for (let i = 0; i < told.length; i++) told[i].flush();
    return fence ? this.deferFence() : true;
  }

  private deferFence(): true {
    const redirected = this.redirectsDone();
    if (redirected !== undefined) this.bus.defer(redirected);
    return true;
  }

  /** clients pushed to while a bus message is delivered (deliver) */
  private told: TrackedClient[] | undefined = undefined;

  /** Redis's trackingInvalidateKey: the key's readers (not NOLOOP's writer itself), and BCAST prefixes. */
  private invalidate(key: Buffer, by: number): void {
    if (this.prefixes.size > 0) this.rememberBroadcast(key, by);
    const ids = this.table.take(key);
    if (ids !== undefined) this.sendKey(key, ids, by);
  }

  /**
   * A PFCOUNT rewrote key's cached cardinality ('modified'): Redis's signalModifiedKey during the
   * command, then the read's trackingRememberKeys after it. So its client, if it did not track the
   * key before (countFresh), is not told and keeps the key tracked; if it did (countTracked), it is
   * told (unless NOLOOP) and tracked again. By the key's Buffer of the command's argv (one object a
   * command; later commands pipelined behind it do not disturb it), in WeakSets: nothing to clear.
   */
  private counted(key: Buffer, by: number): void {
    const fresh = this.countFresh.has(key);
    if (!fresh && !this.countTracked.has(key)) return this.invalidate(key, by);
    if (!fresh) {
      this.invalidate(key, by);
      this.table.remember(key, by);
      return;
    }
    if (this.prefixes.size > 0) this.rememberBroadcast(key, by);
    const ids = this.table.take(key);
    if (ids !== undefined) {
      ids.delete(by);
      this.sendKey(key, ids, by);
    }
    this.table.remember(key, by);
  }

  /** the key Buffers of tracked one-key PFCOUNTs (beforeRun): whether their client tracked the key before */
  private readonly countFresh = new WeakSet<Buffer>();
  private readonly countTracked = new WeakSet<Buffer>();

  private sendKey(key: Buffer, ids: Set<number>, by: number): void {
    for (const id of ids) {
      const c = this.clients.get(id);
      const t = c?.tracking;
      // BCAST clients get their keys by prefix, even keys they had read before switching
      if (c === undefined || t === undefined || t.bcast) continue;
      if (t.noloop && id === by) continue;
      this.send(c, [key]);
    }
  }

  /** Redis's trackingInvalidateKeysOnFlush: a null to every tracking client; FLUSHALL also empties the table. */
  private flushed(all: boolean): void {
    for (const c of this.tracking) this.send(c, null);
    if (all) this.table.clear();
  }

  private rememberBroadcast(key: Buffer, by: number): void {
    let k: string | undefined;
    for (const [p, s] of this.prefixes) {
      if (!startsWith(key, p)) continue;
      k ??= key.toString('latin1');
      const was = s.changed.get(k);
      s.changed.set(k, was === undefined || was === by ? by : 0);
      if (!this.bcastQueued) {
        this.bcastQueued = true;
        setImmediate(this.broadcast);
      }
    }
  }

  /** Redis's trackingBroadcastInvalidationMessages: per prefix, its changed keys (sorted, as its rax) to each client. */
  private readonly broadcast = (): void => {
    this.bcastQueued = false;
    for (const s of this.prefixes.values()) {
      if (s.changed.size === 0) continue;
      const changed = [...s.changed].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      s.changed.clear();
      for (const id of s.clients) {
        const c = this.clients.get(id);
        if (c?.tracking?.bcast !== true) continue;
        const keys: Buffer[] = [];
        for (const [k, by] of changed) if (!(c.tracking.noloop && by === id)) keys.push(Buffer.from(k, 'latin1'));
        if (keys.length > 0) this.send(c, keys);
      }
    }
  };

  // ---------------------------------------------------------------- sending

  /** Redis's sendTrackingMessage: to the client, or its redirect target; keys null = a flush. */
  private send(c: TrackedClient, keys: Buffer[] | null): void {
    const t = c.tracking!;
    if (t.redirect === 0) return this.deliverTo(c, keys, c.proto, false);
    const target = this.clients.get(t.redirect);
    if (target !== undefined && !target.closing) return this.deliverTo(target, keys, c.proto, true);
    if (t.redirectLocal || t.redirectGone) return this.broken(c, t);
    const seq = ++this.redirectSeq;
    this.redirects.postMessage({ to: t.redirect, from: c.id, keys, nullProto: c.proto, w: this.workerIndex, seq } satisfies RedirectMessage);
    this.unacked.set(seq, Date.now());
    this.ackTimer ??= setInterval(this.expireAcks, kAckTimeoutMs / 2).unref();
    // a write of this worker being reported: its reply waits for the answer (takeFence)
    if (this.hook.writer !== 0) this.fenced = this.hook.writer;
  }

  private broken(c: TrackedClient, t: ClientTracking): void {
    t.broken = true;
    if (c.proto === 3) this.push(c, this.encode(3, new RespPush([kRedirBroken, t.redirect])));
  }

  /**
   * To the writer itself while its write is reported: held for dispatch to put right behind the
   * command's reply (Redis 7.0's tracking_pending_keys), not behind commands pipelined after it.
   */
  private push(r: TrackedClient, frame: Raw): void {
    if (r.id !== this.hook.writer) {
      if (r.pushFrame(frame)) this.told?.push(r);
      return;
    }
    const h = this.held.get(r.id);
    if (h === undefined) this.held.set(r.id, [frame]);
    else h.push(frame);
  }

  /** The frames held for client id's command just reported (dispatch, after hook.command). */
  takeHeld(id: number): Raw[] | undefined {
    if (this.held.size === 0) return undefined;
    const h = this.held.get(id);
    if (h !== undefined) this.held.delete(id);
    return h;
  }

  /**
   * RESP3: an `invalidate` push. RESP2: only to a redirect target in Pub/Sub mode, as a message
   * on __redis__:invalidate; a RESP2 connection cannot tell a push from a reply.
   */
  private deliverTo(r: TrackedClient, keys: Buffer[] | null, nullProto: 2 | 3, redirected: boolean): void {
    const payload: Reply = keys ?? kNull[nullProto];
    if (r.proto === 3) this.push(r, this.encode(3, new RespPush([kInvalidate, payload])));
    else if (redirected && r.subscriptions?.active === true) this.push(r, this.encode(2, new RespPush([kMessage, kRedisChannel, payload])));
  }

  private encode(proto: 2 | 3, r: Reply): Raw {
    this.writer.proto = proto;
    writeReply(this.writer, r);
    const chunks = this.writer.take();
    return new Raw(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
  }

  // ---------------------------------------------------------------- redirects to another worker

  private onRedirect(m: RedirectMessage): void {
    if ('to' in m) {
      const r = this.clients.get(m.to);
      if (r !== undefined && !r.closing) {
        this.deliverTo(r, m.keys === null ? null : m.keys.map(asBuffer), m.nullProto, true);
        this.redirected.add(r);
        const seqs = this.acksOut.get(m.w);
        if (seqs === undefined) this.acksOut.set(m.w, [m.seq]);
        else seqs.push(m.seq);
        if (!this.acksQueued) {
          this.acksQueued = true;
          setImmediate(this.ackRedirects);
        }
      } else if (r !== undefined || this.departed.has(m.to)) {
        this.redirects.postMessage({ bounced: m.to, from: m.from, w: m.w, seq: m.seq } satisfies RedirectMessage);
      }
    } else if ('acked' in m) {
      if (m.w !== this.workerIndex) return;
      for (const seq of m.acked) this.unacked.delete(seq);
      this.settleAcks();
    } else if ('bounced' in m) {
      if (m.w !== this.workerIndex) return;
      this.unacked.delete(m.seq);
      this.settleAcks();
      const c = this.clients.get(m.from);
      const t = c?.tracking;
      if (t !== undefined && t.redirect === m.bounced) {
        t.redirectGone = true;
        this.broken(c!, t);
      }
    } else if ('watch' in m) {
      if (this.clients.has(m.watch)) this.targets.add(m.watch);
      // closed before the watch came: its tracking clients learn it now, not from a bounce later
      else if (this.departed.has(m.watch)) this.redirects.postMessage({ gone: m.watch } satisfies RedirectMessage);
    } else {
      this.targetGone(m.gone);
    }
  }

  /**
   * The redirected invalidations of this turn (a poll phase hands over every queued message at
   * once) are written to their targets' sockets, then each sending worker is told which of its
   * messages were: its fence waits for that.
   */
  private readonly ackRedirects = (): void => {
    this.acksQueued = false;
    if (this.stopped) return;
    for (const r of this.redirected) r.flush();
    this.redirected.clear();
    for (const [w, acked] of this.acksOut) this.redirects.postMessage({ acked, w } satisfies RedirectMessage);
    this.acksOut.clear();
  };

  private targetGone(id: number): void {
    for (const c of this.tracking) if (c.tracking!.redirect === id) c.tracking!.redirectGone = true;
  }

  /** A connection of this worker closed. */
  closed(c: TrackedClient): void {
    this.disable(c);
    this.held.delete(c.id);
    if (this.targets.delete(c.id)) this.redirects.postMessage({ gone: c.id } satisfies RedirectMessage);
    // any client, not only known targets: a `watch` for it may still be on its way
    this.departed.add(c.id);
    if (this.departed.size > kDeparted) this.departed.delete(this.departed.values().next().value!);
  }
}

const kFlushAll = Buffer.from('all');

function asBuffer(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

function startsWith(key: Buffer, prefix: string): boolean {
  if (prefix.length > key.length) return false;
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix.charCodeAt(i)) return false;
  return true;
}

/** tracking-table-max-keys is per process (Redis's): each worker keeps its share, at least 1 */
function perWorker(limit: number, workers: number): number {
  return limit === 0 ? 0 : Math.max(1, Math.ceil(limit / Math.max(1, workers)));
}
