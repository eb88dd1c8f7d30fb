/**
 * MessageBus: a worker thread's end of the process-wide message bus (docs/messaging.md). The
 * pub/sub commands, blocking commands and keyspace notifications use it:
 *
 *   publish(channel, message)      → receivers in this process (PUBLISH's reply), delivered to
 *                                    this worker's subscribers at once, to other workers through
 *                                    a BroadcastChannel, to other instances through the primary
 *   subscribe('c'|'p'|'s', name, sub) / unsubscribe(…)   SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE
 *   waitKey(db, key, waiter) / unwaitKey(…)               a client blocked on key
 *   wake(db, key)                                          after a commit made key non-empty
 *   wakeServed(db, key)                                    wake(), and a promise: this process's woken clients tried again
 *
 * subscribe() and waitKey() resolve once every worker of this process and every other instance
 * has the new interest: a PUBLISH or a push decided after that reaches it. Each worker keeps a
 * view of what the others want (counts per key, patterns) so publish() and wake() decide alone,
 * with no message at all when nobody else listens: wake() costs three Map-size reads then.
 *
 * Ordering: one worker's items go out in publish order on each path (own subscribers at once,
 * BroadcastChannel, primary → Postgres), each path is FIFO, so every subscriber sees a given
 * publisher's messages in order.
 */
import { BroadcastChannel } from 'node:worker_threads';
import { globMatch } from '../engine/glob';
import type { ItemKind } from './codec';
import { blockedKey, interestKey, PatternSet, type InterestKind } from './interest';
import { forEachPacked, packItems } from './local-frame';
import { PushBytes } from './push-bytes';
import { kIdle, kPartial, newSlotBuffer, SocketSlots } from './socket-slots';
import { asBuffer, compactWire, type BusToHub, type ScriptKind, type CountFrame, type HubToBus, type LocalFrame, type ViewEntry, type WireItems } from './messages';

/** how long a blocked key stays reported after its last waiter here left (unwaitKey) */
const kKeyLingerMs = 250;

/** A subscribed client. deliver() returns false when the client is over its pubsub output limit
 * (it closes itself): the bus then drops every subscription it holds. */
export interface Subscriber {
  deliver(kind: 'm' | 's', channel: Buffer, message: Buffer, pattern?: Buffer): boolean;
  /** its socket slot in this worker's table (socket-slots.ts): other workers write its channel messages themselves */
  readonly slot?: number;
}

/** The client of a socket slot: the rest of a publisher's short send, to write before anything else. */
export interface SlotSink {
  remainder(bytes: Buffer): void;
}

/** An item of the frame being built whose receivers on other workers include slotted subscribers. */
interface DirectItem {
  at: number;
  kind: 'm' | 's';
  channel: Buffer;
  message: Buffer;
  /** the view's direct list (ViewEntry.direct) */
  targets: number[];
  /** the other workers' receivers by the view, patterns included; and the pattern ones alone */
  others: number;
  patterns: number;
  /** PUBLISH's ask for this item, its place in askOut, the workers holding a matching pattern */
  ask: number;
  askAt: number;
  patternBits: number;
}

const kEstale = -116;

/**
 * A client blocked on a key (waitKey): called on each wake-up; a promise when it tries again,
 * settled once that try answered (wakeServed waits for it; a push's reply does, docs/blocking.md).
 */
export type KeyWaiter = () => unknown;

export interface PortLike {
  postMessage(msg: BusToHub): void;
}

export interface BusStats {
  published: number;
  delivered: number;
  sentLocal: number;
  sentRemote: number;
  received: number;
  wakes: number;
  /** frames from the other workers, the loop turns that handled them, CountFrames sent back */
  framesIn: number;
  turnsIn: number;
  countFramesOut: number;
  /** messages written to another worker's subscriber by this one (socket-slots.ts), and those that went the channel's way instead */
  directSent: number;
  directMissed: number;
}

export function busChannelName(instance: string): string {
  return `postresp-bus:${instance}`;
}

export class MessageBus {
  readonly stats: BusStats = { published: 0, delivered: 0, sentLocal: 0, sentRemote: 0, received: 0, wakes: 0, framesIn: 0, turnsIn: 0, countFramesOut: 0, directSent: 0, directMissed: 0 };
  /** this worker's subscribers whose sockets the other workers write themselves */
  readonly slots = new SocketSlots(newSlotBuffer());
  private readonly slotSinks = new Map<number, SlotSink>();
  /** the other workers' slot tables, by index */
  private tables: (SocketSlots | undefined)[] = [];
  /** channel key → the view's direct list (ViewEntry.direct) */
  private readonly direct = new Map<string, number[]>();
  private directItems: DirectItem[] = [];
  private readonly pushBytes = new PushBytes();
  private readonly own = new Map<string, Set<Subscriber>>();
  private readonly ownPatterns = new Map<string, { pattern: Buffer; subs: Set<Subscriber> }>();
  private readonly waiters = new Map<string, Set<KeyWaiter>>();
  private readonly others = new Map<string, number>();
  /** the other workers holding each channel key, as bits (ViewEntry.holders) */
  private readonly holders = new Map<string, number>();
  /** PUBLISHes waiting for the other workers' counts: id → receivers so far, workers still to answer */
  private readonly asks = new Map<number, { n: number; left: number; resolve: (n: number) => void; since: number }>();
  private askOut: number[] = [];
  private nextAsk = 1;
  private askTimer: NodeJS.Timeout | undefined = undefined;
  private readonly otherPatterns = new PatternSet();
  private readonly otherKeys = new Set<string>();
  private readonly remote = new Set<string>();
  private readonly remotePatterns = new PatternSet();
  private readonly remoteKeys = new Set<string>();
  private readonly pending = new Map<number, () => void>();
  private nextId = 1;
  private localOut: WireItems = [];
  private remoteOut: WireItems = [];
  private flushQueued = false;
  /** frames from the channel not yet handled (onChannel) */
  private inbox: (LocalFrame | CountFrame)[] = [];
  private closed = false;
  private keysWanted = false;
  /**
   * Told when whether a client waits on a key anywhere (this worker, another, another instance)
   * changes: the blocking commands listen to the write hook only while one does.
   */
  onKeysWanted: ((wanted: boolean) => void) | undefined = undefined;
  /** interest key → told whether another worker or instance holds it, when the view changes */
  private readonly watchers = new Map<string, (others: boolean) => void>();
  /** the server's own channels (CLIENT TRACKING's): not listed by PUBSUB or INFO */
  private readonly hidden = new Set<string>();
  private readonly channel: BroadcastChannel;
  private onReady!: () => void;
  /** resolves when the hub sent this worker its first view of the others' interest */
  readonly ready = new Promise<void>((r) => (this.onReady = r));

  constructor(private readonly port: PortLike, readonly workerIndex: number, channelName: string) {
    this.channel = new BroadcastChannel(channelName);
    this.channel.onmessage = (e) => this.onChannel((e as { data: LocalFrame | CountFrame }).data);
    // a BroadcastChannel keeps the loop alive; the worker's sockets and lanes already do
    (this.channel as unknown as { unref(): void }).unref();
    port.postMessage({ type: 'bus', op: 'hello', slots: this.slots.buffer });
  }

  close(): void {
    this.closed = true;
    this.channel.close();
    for (const t of this.lingering.values()) clearTimeout(t);
    this.lingering.clear();
    if (this.askTimer !== undefined) clearInterval(this.askTimer);
    for (const [id, a] of this.asks) this.answered(id, a);
    for (const done of this.pending.values()) done();
    this.pending.clear();
  }

  // ---------------------------------------------------------------- publishing

  /** SCRIPT/FUNCTION KILL for the other instances: each stops the killable calls of that kind it runs. */
  killRemote(kind: ScriptKind): void {
    this.port.postMessage({ type: 'bus', op: 'kill', kind });
  }

  /** Delivers at once to this worker's subscribers; returns the receivers in this process. */
  publish(channel: Buffer, message: Buffer, shard = false): number {
    return this.send(channel, message, shard) + this.sentOthers;
  }

  /** the other workers' receivers by the view, of the last send() */
  private sentOthers = 0;

  /** Delivers here, queues for the other workers and instances; returns this worker's receivers. */
  private send(channel: Buffer, message: Buffer, shard: boolean): number {
    this.stats.published++;
    const key = interestKey(shard ? 's' : 'c', channel);
    const kind: 'm' | 's' = shard ? 's' : 'm';
    const n = this.deliverOwn(kind, key, channel, message);
    const patterns = shard ? 0 : this.otherPatterns.matches(channel);
    const others = (this.others.get(key) ?? 0) + patterns;
    if (others > 0) {
      const direct = this.direct.get(key);
      if (direct !== undefined) {
        this.directItems.push({ at: this.localOut.length / 4, kind, channel, message, targets: direct, others, patterns, ask: 0, askAt: -1, patternBits: 0 });
      }
      this.queue(this.localOut, kind, 0, channel, message);
    }
    if (this.remote.has(key) || (!shard && this.remotePatterns.matches(channel) > 0)) this.queue(this.remoteOut, kind, 0, channel, message);
    this.sentOthers = others;
    return n;
  }

  /** A subscriber on another instance (by the view) of interest key (interestKey('s', channel), made once by the caller). */
  wantsRemote(key: string): boolean {
    return this.remote.has(key);
  }

  /**
   * To the shard channel's subscribers on other instances only, nothing in this process (--cache
   * shared's invalidations: this process's workers share its version table already).
   */
  publishRemote(channel: Buffer, message: Buffer): void {
    this.stats.published++;
    this.queue(this.remoteOut, 's', 0, channel, message);
  }

  /**
   * PUBLISH, SPUBLISH: publish(), with the other workers' receivers counted where they are. The
   * view's count can be stale while a subscription changes on another worker (an UNSUBSCRIBE
   * sent just before, on another connection, and not yet known here: Redis's unit/pubsub does
   * that), so each worker holding the channel answers how many it delivered to: a Promise then,
   * resolved when they all have (a worker that does not answer within 1 s is left out).
   */
  publishCounted(channel: Buffer, message: Buffer, shard = false): number | Promise<number> {
    const key = interestKey(shard ? 's' : 'c', channel);
    const bits = (this.holders.get(key) ?? 0) | (shard ? 0 : this.otherPatterns.holdersOf(channel));
    if (bits === 0 || this.workerIndex >= 31) return this.publish(channel, message, shard);
    const at = this.localOut.length / 4;
    const own = this.send(channel, message, shard);
    if (this.localOut.length / 4 === at) return own + this.sentOthers; // not queued: nobody else by the view
    const asked = this.ask(at, bits, own);
    const d = this.directItems[this.directItems.length - 1];
    if (d !== undefined && d.at === at) {
      d.ask = this.nextAsk - 1;
      d.askAt = this.askOut.length - 3;
      d.patternBits = shard ? 0 : this.otherPatterns.holdersOf(channel);
    }
    return asked;
  }

  /** Asks the workers of `bits` about item `at` of the frame being built: resolves with n plus their answers. */
  private ask(at: number, bits: number, n: number): Promise<number> {
    const id = this.nextAsk++;
    this.askOut.push(at, id, bits);
    this.askTimer ??= setInterval(this.expireAsks, 500).unref();
    return new Promise<number>((resolve) => this.asks.set(id, { n, left: bits, resolve, since: Date.now() }));
  }

  private readonly expireAsks = (): void => {
    const old = Date.now() - 1000;
    for (const [id, a] of this.asks) if (a.since < old) this.answered(id, a);
    if (this.asks.size === 0 && this.askTimer !== undefined) {
      clearInterval(this.askTimer);
      this.askTimer = undefined;
    }
  };

  private answered(id: number, a: { n: number; resolve: (n: number) => void }): void {
    this.asks.delete(id);
    a.resolve(a.n);
  }

  /** After a commit that may have made key non-empty: wakes the clients blocked on it anywhere. */
  wake(db: number, key: Buffer): void {
    if (this.waiters.size === 0 && this.otherKeys.size === 0 && this.remoteKeys.size === 0) return;
    const k = blockedKey(db, key);
    this.wakeOwn(k);
    if (this.otherKeys.has(k)) this.queue(this.localOut, 'w', db, key, kEmpty);
    if (this.remoteKeys.has(k)) this.queue(this.remoteOut, 'w', db, key, kEmpty);
  }

  /**
   * wake(), and a promise settled once the clients it woke tried again: this worker's (each
   * waiter's promise), the other workers' holding key by the view (each answers when its own
   * waiters did; 1 s at most for one that does not), and other instances' holding it (an answer
   * back through Postgres; 1 s at most). undefined when nobody else waits on key.
   */
  wakeServed(db: number, key: Buffer): Promise<unknown> | undefined {
    if (this.waiters.size === 0 && this.otherKeys.size === 0 && this.remoteKeys.size === 0) return undefined;
    const k = blockedKey(db, key);
    const tries: PromiseLike<unknown>[] = [];
    this.wakeOwn(k, tries);
    if (this.otherKeys.has(k)) {
      const at = this.localOut.length / 4;
      this.queue(this.localOut, 'w', db, key, kEmpty);
      const bits = this.holders.get(k) ?? 0;
      if (bits !== 0 && this.workerIndex < 31) tries.push(this.ask(at, bits, 0));
    }
    if (this.remoteKeys.has(k)) {
      // the other instances answer once the clients it woke there tried again (their hub, then
      // Postgres: docs/messaging.md); pg-link gives up after 1 s (counted), this ask 1 s later
      const id = this.nextAsk++;
      this.queue(this.remoteOut, 'w', db, key, Buffer.from(String(id), 'latin1'));
      this.askTimer ??= setInterval(this.expireAsks, 500).unref();
      tries.push(new Promise<number>((resolve) => this.asks.set(id, { n: 0, left: kRemoteBit, resolve, since: Date.now() + 1000 })));
    }
    return tries.length === 0 ? undefined : Promise.all(tries);
  }

  /**
   * Whether a client blocks on (db, key) anywhere by this worker's view (a push there would wake
   * it). Asked for every write while somebody blocks (push-gate.ts): the byte lengths of the
   * waited keys filter first, so a write to another key makes no string (150–350 ns a call
   * without the filter, most of it the key's string, measured with one unrelated key waited).
   */
  waited(db: number, key: Buffer): boolean {
    if (this.waiters.size === 0 && this.otherKeys.size === 0 && this.remoteKeys.size === 0) return false;
    const lengths = this.waitedLengths ??= this.keyLengths();
    if (!lengths.has(key.length)) return false;
    const k = blockedKey(db, key);
    return this.waiters.has(k) || this.otherKeys.has(k) || this.remoteKeys.has(k);
  }

  /** the byte lengths of the keys waited on anywhere (undefined: to be computed again) */
  private waitedLengths: Set<number> | undefined = undefined;

  private keyLengths(): Set<number> {
    const out = new Set<number>();
    for (const set of [this.waiters.keys(), this.otherKeys, this.remoteKeys]) {
      // 'k<db>:<key latin1>': one character a byte
      for (const k of set) out.add(k.length - k.indexOf(':') - 1);
    }
    return out;
  }

  /**
   * SWAPDB, FLUSHDB: every key of db that a client waits on anywhere is woken (db -1, FLUSHALL: of
   * every db), as wakeServed wakes one: settled once the clients it woke tried again.
   */
  wakeDb(db: number): Promise<unknown> | undefined {
    const tries: PromiseLike<unknown>[] = [];
    for (const k of this.waitedIn(db)) {
      const colon = k.indexOf(':');
      const served = this.wakeServed(Number(k.slice(1, colon)), Buffer.from(k.slice(colon + 1), 'latin1'));
      if (served !== undefined) tries.push(served);
    }
    return tries.length === 0 ? undefined : Promise.all(tries);
  }

  /** Whether a client blocks on a key of db anywhere (db -1: of any db), by this worker's view (push-gate.ts: SWAPDB, FLUSHDB). */
  waitedDb(db: number): boolean {
    return this.waitedIn(db).size > 0;
  }

  /** the interest keys ('k<db>:<key>') of db waited on anywhere (db -1: of every db) */
  private waitedIn(db: number): Set<string> {
    const prefix = db < 0 ? 'k' : `k${db}:`;
    const keys = new Set<string>();
    for (const set of [this.waiters.keys(), this.otherKeys, this.remoteKeys]) for (const k of set) if (k.startsWith(prefix)) keys.add(k);
    return keys;
  }

  private checkKeysWanted(): void {
    // called after every change of the waited keys
    this.waitedLengths = undefined;
    const wanted = this.waiters.size > 0 || this.otherKeys.size > 0 || this.remoteKeys.size > 0;
    if (wanted === this.keysWanted) return;
    this.keysWanted = wanted;
    this.onKeysWanted?.(wanted);
  }

  private queue(out: WireItems, kind: ItemKind, db: number, a: Buffer, b: Buffer): void {
    out.push(kind, db, a, b);
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(() => this.flush());
    }
  }

  /**
   * One frame per path per turn of the event loop: a pipeline of PUBLISHes is one message. The
   * other workers' slotted subscribers are written here first (flushDirect): when that reached
   * every receiver, nothing is posted and no other thread wakes.
   */
  private flush(): void {
    this.flushQueued = false;
    if (this.localOut.length > 0) {
      const items = this.localOut.length / 4;
      this.stats.sentLocal += items;
      const frame: LocalFrame = { from: this.workerIndex, bytes: kNoBytes };
      let post = this.directItems.length < items;
      if (this.directItems.length > 0 && this.flushDirect(frame)) post = true;
      if (post) {
        frame.bytes = packItems(this.localOut);
        if (this.askOut.length > 0) frame.asks = this.askOut;
        this.channel.postMessage(frame);
      }
      this.askOut = [];
      this.localOut = [];
    }
    if (this.remoteOut.length > 0) {
      this.stats.sentRemote += this.remoteOut.length / 4;
      this.port.postMessage({ type: 'bus', op: 'out', items: compactWire(this.remoteOut) });
      this.remoteOut = [];
    }
  }

  /**
   * Writes this turn's messages for the other workers' slotted subscribers to their sockets, one
   * send(2) per subscriber (socket-slots.ts). A subscriber whose slot is not idle, or that still
   * has messages of the channel's way unwritten, gets them through the channel (counted: no direct
   * send to it until its worker wrote them). Fills frame's skip / counted / rest; answers the
   * PUBLISH asks that the sends settled. true when the frame must still go on the channel.
   */
  private flushDirect(frame: LocalFrame): boolean {
    const items = this.directItems;
    this.directItems = [];
    let channel = false;
    // each slotted subscriber's items, in order
    const per = new Map<number, number[]>();
    for (let j = 0; j < items.length; j++) {
      const it = items[j]!;
      const t = it.targets;
      let listed = it.patterns;
      if (it.patterns > 0) channel = true;
      for (let i = 0; i < t.length; i += 3 + t[i + 2]!) {
        const w = t[i]!;
        const slots = t[i + 2]!;
        listed += t[i + 1]! + slots;
        if (t[i + 1]! > 0) channel = true;
        for (let s = 0; s < slots; s++) {
          const k = w * 65536 + t[i + 3 + s]!;
          const js = per.get(k);
          if (js === undefined) per.set(k, [j]);
          else js.push(j);
        }
      }
      if (listed < it.others) channel = true; // a worker whose receivers have no slot
    }
    let sent: Set<number> | undefined;
    const pb = this.pushBytes;
    for (const [k, js] of per) {
      const w = Math.floor(k / 65536);
      const slot = k % 65536;
      const table = this.tables[w];
      if (table === undefined || !table.tryLock(slot)) {
        if (table !== undefined) {
          table.addPending(slot);
          (frame.counted ??= []).push(w, slot);
        }
        this.stats.directMissed += js.length;
        channel = true;
        continue;
      }
      const proto = table.proto(slot);
      pb.reset();
      for (const j of js) pb.add(items[j]!.kind, items[j]!.channel, items[j]!.message, proto);
      const bytes = pb.bytes();
      const n = table.send(slot, bytes);
      if (n === bytes.length) {
        table.unlock(slot, kIdle);
      } else if (n > 0) {
        // the rest goes on the channel; the subscriber's worker writes it before anything else
        (frame.rest ??= []).push(Buffer.from(bytes.subarray(n)));
        (frame.restTo ??= []).push(w, slot);
        table.unlock(slot, kPartial);
        channel = true;
      } else {
        // socket full (or gone: -ESTALE, its worker finds no subscriber): the channel's way
        if (n !== kEstale) {
          table.addPending(slot);
          (frame.counted ??= []).push(w, slot);
        }
        table.unlock(slot, kIdle);
        this.stats.directMissed += js.length;
        channel = true;
        continue;
      }
      this.stats.directSent += js.length;
      (sent ??= new Set()).add(k);
      const skip = frame.skip ??= [];
      for (const j of js) skip.push(items[j]!.at, w, slot);
    }
    pb.trim();
    for (const it of items) if (it.ask !== 0) this.settleAsk(it, sent);
    return channel;
  }

  /** A PUBLISH's ask after flushDirect: the subscribers written here count; a worker they were all of needs not answer. */
  private settleAsk(it: DirectItem, sent: Set<number> | undefined): void {
    const a = this.asks.get(it.ask);
    if (a === undefined) return;
    const t = it.targets;
    for (let i = 0; i < t.length; i += 3 + t[i + 2]!) {
      const w = t[i]!;
      let all = t[i + 1] === 0 && (it.patternBits & (1 << w)) === 0;
      for (let s = 0; s < t[i + 2]!; s++) {
        if (sent?.has(w * 65536 + t[i + 3 + s]!) === true) a.n++;
        else all = false;
      }
      if (all) a.left &= ~(1 << w);
    }
    this.askOut[it.askAt + 2] = a.left;
    if (a.left === 0) this.answered(it.ask, a);
  }

  /** A client's socket slot, for the other workers to write its channel messages; -1 when none is left. */
  attachSlot(fd: number, proto: 2 | 3, sink: SlotSink): number {
    const slot = this.slots.alloc(fd, proto);
    if (slot >= 0) this.slotSinks.set(slot, sink);
    return slot;
  }

  /** The client closes: nobody may write its socket from now on. */
  detachSlot(slot: number): void {
    this.slotSinks.delete(slot);
    this.slots.free(slot);
  }

  // ---------------------------------------------------------------- receiving

  /**
   * A frame from the channel waits in the inbox until the loop's check phase: Node hands a port's
   * queued messages over in one go (poll phase) but runs the microtasks after each one, so
   * delivering at once cost, for each frame, a write to every subscriber's socket and a CountFrame
   * back to the publisher. A worker that fell behind (its thread waited for a CPU: 250–600 ms a
   * second at load average ~10, /proc/<tid>/schedstat) found a dozen frames queued and answered
   * each on its own, making its work per message grow as it fell further behind. Drained
   * together, a backlog costs one write per subscriber and one CountFrame per publishing worker.
   * Arrival order is kept: frames and counts are handled in the order they came.
   */
  private onChannel(frame: LocalFrame | CountFrame): void {
    this.inbox.push(frame);
    if (this.inbox.length === 1) setImmediate(this.drainInbox);
  }

  private readonly drainInbox = (): void => {
    const frames = this.inbox;
    this.inbox = [];
    if (this.closed) return;
    this.stats.turnsIn++;
    let answers: Map<number, number[]> | undefined;
    for (const frame of frames) {
      if ('counts' in frame) {
        this.onCounts(frame);
        continue;
      }
      this.stats.framesIn++;
      const counts = this.receiveFrame(frame);
      if (counts === undefined) continue;
      answers ??= new Map();
      const to = answers.get(frame.from);
      if (to === undefined) answers.set(frame.from, counts);
      else for (const c of counts) to.push(c);
    }
    if (answers === undefined) return;
    for (const [to, counts] of answers) {
      this.stats.countFramesOut++;
      this.channel.postMessage({ from: this.workerIndex, to, counts } satisfies CountFrame);
    }
  };

  /** A worker's answer to this worker's PUBLISHes: each ask resolves once every holder answered. */
  private onCounts(frame: CountFrame): void {
    if (frame.to !== this.workerIndex) return;
    const bit = 1 << frame.from;
    for (let i = 0; i + 1 < frame.counts.length; i += 2) {
      const a = this.asks.get(frame.counts[i]!);
      if (a === undefined) continue;
      a.n += frame.counts[i + 1]!;
      a.left &= ~bit;
      if (a.left === 0) this.answered(frame.counts[i]!, a);
    }
  }

  /** Delivers items (from the primary: other instances') here. */
  private receive(items: WireItems): void {
    const r = new Receipt(undefined, -1);
    for (let i = 0, at = 0; i + 3 < items.length; i += 4, at++) {
      this.receiveItem(r, items[i] as ItemKind, items[i + 1] as number, asBuffer(items[i + 2] as Uint8Array), asBuffer(items[i + 3] as Uint8Array), at);
    }
  }

  /** Delivers another worker's frame here; with asks, returns [ask id, receivers…] for the asks naming this worker. */
  private receiveFrame(frame: LocalFrame): number[] | undefined {
    const me = this.workerIndex;
    if (frame.rest !== undefined) {
      // a publisher's short send to a subscriber here: its rest goes out before anything else
      for (let j = 0; j < frame.rest.length; j++) {
        if (frame.restTo![2 * j] === me) this.slotSinks.get(frame.restTo![2 * j + 1]!)?.remainder(asBuffer(frame.rest[j]!));
      }
    }
    let skip: Map<number, number[]> | undefined;
    if (frame.skip !== undefined) {
      const sk = frame.skip;
      for (let i = 0; i < sk.length; i += 3) {
        if (sk[i + 1] !== me) continue;
        skip ??= new Map();
        const at = sk[i]!;
        const slots = skip.get(at);
        if (slots === undefined) skip.set(at, [sk[i + 2]!]);
        else slots.push(sk[i + 2]!);
      }
    }
    const r = new Receipt(frame.asks, frame.from);
    forEachPacked(frame.bytes, (kind, db, a, b, at) => this.receiveItem(r, kind, db, a, b, at, skip?.get(at)));
    if (frame.counted !== undefined) {
      // written into their clients now (their slots are OWNER until flushed): direct sends may resume after
      const c = frame.counted;
      for (let i = 0; i < c.length; i += 2) if (c[i] === me) this.slots.donePending(c[i + 1]!, 1);
    }
    return r.counts;
  }

  private receiveItem(r: Receipt, kind: ItemKind, db: number, a: Buffer, b: Buffer, at: number, skip?: number[]): void {
    this.stats.received++;
    const asks = r.asks;
    const asked = asks !== undefined && asks[r.next] === at;
    const me = 1 << this.workerIndex;
    if (kind === 'w') {
      const k = blockedKey(db, a);
      if (b.byteLength > 0) {
        // another instance's push waits: answer the hub once the clients woken here tried again
        const id = Number(b.toString('latin1'));
        const tries: PromiseLike<unknown>[] = [];
        this.wakeOwn(k, tries);
        const served = (): void => this.port.postMessage({ type: 'bus', op: 'served', id });
        if (tries.length === 0) served();
        else void Promise.all(tries).then(served, served);
        return;
      }
      if (!asked) return this.wakeOwn(k);
      // wakeServed on `from` waits: answer once the clients woken here tried again
      const id = asks[r.next + 1]!;
      if ((asks[r.next + 2]! & me) !== 0) {
        const tries: PromiseLike<unknown>[] = [];
        this.wakeOwn(k, tries);
        this.answerLater(r.from, id, 0, Promise.all(tries));
      } else this.wakeOwn(k);
      r.next += 3;
      return;
    }
    const n = this.deliverOwn(kind, interestKey(kind === 's' ? 's' : 'c', a), a, b, skip);
    const held = this.deferred;
    if (held !== undefined) this.deferred = undefined;
    if (asked) {
      if ((asks[r.next + 2]! & me) !== 0) {
        if (held === undefined) (r.counts ??= []).push(asks[r.next + 1]!, n);
        else this.answerLater(r.from, asks[r.next + 1]!, n, held);
      }
      r.next += 3;
    }
  }

  /** set by defer() during a deliver() of receiveItem: that item's count waits for it */
  private deferred: PromiseLike<unknown> | undefined = undefined;

  /**
   * Called by a subscriber inside its deliver() of another worker's counted item: the count
   * answered to the publisher waits until `until` settled (CLIENT TRACKING's fence: a redirect
   * target on a third worker has written the invalidation; tracker.ts). Elsewhere it is dropped.
   */
  defer(until: PromiseLike<unknown>): void {
    this.deferred = until;
  }

  private answerLater(to: number, id: number, n: number, until: PromiseLike<unknown>): void {
    const answer = (): void => {
      if (!this.closed) this.channel.postMessage({ from: this.workerIndex, to, counts: [id, n] } satisfies CountFrame);
    };
    until.then(answer, answer);
  }

  /** skip: the socket slots another worker wrote this message to itself */
  private deliverOwn(kind: 'm' | 's', key: string, channel: Buffer, message: Buffer, skip?: number[]): number {
    let n = 0;
    const subs = this.own.get(key);
    if (subs) {
      for (const s of subs) {
        if (skip !== undefined && s.slot !== undefined && skip.includes(s.slot)) continue;
        n++;
        if (!s.deliver(kind, channel, message)) this.dropSubscriber(s);
      }
    }
    if (kind === 'm' && this.ownPatterns.size > 0) {
      for (const p of this.ownPatterns.values()) {
        if (!globMatch(p.pattern, channel)) continue;
        for (const s of p.subs) {
          n++;
          if (!s.deliver(kind, channel, message, p.pattern)) this.dropSubscriber(s);
        }
      }
    }
    this.stats.delivered += n;
    return n;
  }

  /** Wakes this worker's waiters of key; with `tries`, pushes there each one's promise of its try. */
  private wakeOwn(key: string, tries?: PromiseLike<unknown>[]): void {
    const set = this.waiters.get(key);
    if (!set) return;
    // in the order they blocked (a Set iterates in insertion order); a copy: a waiter unwaits
    for (const w of [...set]) {
      this.stats.wakes++;
      const p = w();
      if (tries !== undefined && p instanceof Promise) tries.push(p);
    }
  }

  // ---------------------------------------------------------------- interest

  /** Resolves once the whole process and every other instance deliver name's messages here. */
  subscribe(kind: InterestKind, name: Buffer, sub: Subscriber): Promise<void> {
    const key = interestKey(kind, name);
    let n: number;
    if (kind === 'p') {
      let e = this.ownPatterns.get(key);
      if (!e) this.ownPatterns.set(key, e = { pattern: Buffer.from(name), subs: new Set() });
      if (e.subs.has(sub)) return Promise.resolve();
      e.subs.add(sub);
      n = e.subs.size;
    } else {
      let set = this.own.get(key);
      if (!set) this.own.set(key, set = new Set());
      if (set.has(sub)) return Promise.resolve();
      set.add(sub);
      n = set.size;
    }
    return this.report(key, n);
  }

  /** true when sub held this subscription. */
  unsubscribe(kind: InterestKind, name: Buffer, sub: Subscriber): boolean {
    const left = this.leave(kind, name, sub);
    if (left === undefined) return false;
    void left;
    return true;
  }

  /**
   * unsubscribe(), resolved once every worker and instance knows (so a PUBLISH decided after
   * that no longer counts sub: UNSUBSCRIBE waits for it); undefined when sub did not hold it.
   */
  leave(kind: InterestKind, name: Buffer, sub: Subscriber): Promise<void> | undefined {
    const key = interestKey(kind, name);
    const set = kind === 'p' ? this.ownPatterns.get(key)?.subs : this.own.get(key);
    if (!set?.delete(sub)) return undefined;
    if (set.size === 0) {
      if (kind === 'p') this.ownPatterns.delete(key);
      else this.own.delete(key);
    }
    return this.report(key, set.size);
  }

  /** A client over its output limit: every subscription it holds goes. */
  dropSubscriber(sub: Subscriber): void {
    for (const [key, set] of this.own) if (set.has(sub)) this.unsubscribe(key[0] as InterestKind, Buffer.from(key.slice(1), 'latin1'), sub);
    for (const [key, e] of this.ownPatterns) if (e.subs.has(sub)) this.unsubscribe('p', Buffer.from(key.slice(1), 'latin1'), sub);
  }

  /** A client blocks on key: resolves once a push anywhere wakes it (then re-check the key). */
  waitKey(db: number, key: Buffer, waiter: KeyWaiter): Promise<void> {
    const k = blockedKey(db, key);
    let set = this.waiters.get(k);
    if (!set) this.waiters.set(k, set = new Set());
    if (set.has(waiter)) return Promise.resolve();
    set.add(waiter);
    this.checkKeysWanted();
    const t = this.lingering.get(k);
    if (t !== undefined) {
      clearTimeout(t);
      this.lingering.delete(k);
    }
    // the hub knows already that a client waits on k here (only whether one does matters for a
    // blocked key: others read it as a set, otherKeys, and as holder bits): nothing to tell it
    return this.keyReports.get(k) ?? this.reportKey(k, 1);
  }

  unwaitKey(db: number, key: Buffer, waiter: KeyWaiter): void {
    const k = blockedKey(db, key);
    const set = this.waiters.get(k);
    if (!set?.delete(waiter)) return;
    if (set.size > 0) return;
    this.waiters.delete(k);
    this.checkKeysWanted();
    // a client blocking in a loop (BZPOPMIN, XREAD BLOCK) leaves and waits again at once: the
    // hub hears that the key went only if nobody waits on it here kKeyLingerMs later. Each
    // report (every waiter that came or went, until 2026-12-01) was a count to the primary, a
    // view to and an ack from every other worker, and a done back, all through the primary's
    // main thread. Meanwhile pushes to the key still reach this worker, which has nobody to wake.
    if (this.lingering.has(k)) return;
    const t = setTimeout(() => {
      this.lingering.delete(k);
      if (!this.waiters.has(k) && !this.closed) void this.reportKey(k, 0);
    }, kKeyLingerMs);
    t.unref();
    this.lingering.set(k, t);
  }

  /** blocked keys whose last waiter here left less than kKeyLingerMs ago: their timers */
  private readonly lingering = new Map<string, NodeJS.Timeout>();
  /** blocked keys the hub was told a client waits on here: the acknowledgement of that report */
  private readonly keyReports = new Map<string, Promise<void>>();

  /** n: 1 (a client waits on k here) or 0 (none does) */
  private reportKey(k: string, n: 0 | 1): Promise<void> {
    const done = this.report(k, n);
    if (n > 0) this.keyReports.set(k, done);
    else this.keyReports.delete(k);
    return done;
  }

  /**
   * Calls cb whenever whether another worker of this process or another instance holds interest
   * key may have changed (CLIENT TRACKING listens to the write hook only while someone tracks).
   */
  watchInterest(key: string, cb: (others: boolean) => void): void {
    this.watchers.set(key, cb);
  }

  /** A channel of the server's own (interest key): PUBSUB CHANNELS / SHARDCHANNELS and INFO leave it out. */
  hide(key: string): void {
    this.hidden.add(key);
  }

  /** PUBSUB CHANNELS / SHARDCHANNELS, INFO pubsub_channels: channels with a subscriber in this process. */
  channelNames(kind: 'c' | 's'): Buffer[] {
    const keys = new Set<string>();
    for (const k of this.own.keys()) if (k[0] === kind && !this.hidden.has(k)) keys.add(k);
    for (const k of this.others.keys()) if (k[0] === kind && !this.hidden.has(k)) keys.add(k);
    return [...keys].map((k) => Buffer.from(k.slice(1), 'latin1'));
  }

  /** PUBSUB NUMSUB / SHARDNUMSUB: subscribers of a channel in this process. */
  subscribers(kind: 'c' | 's', name: Buffer): number {
    const key = interestKey(kind, name);
    return (this.own.get(key)?.size ?? 0) + (this.others.get(key) ?? 0);
  }

  /** PUBSUB NUMPAT, INFO pubsub_patterns: distinct patterns subscribed in this process. */
  patternCount(): number {
    let n = this.ownPatterns.size;
    for (const k of this.otherPatterns.patterns.keys()) if (!this.ownPatterns.has(k)) n++;
    return n;
  }

  /** Subscriptions in this process other than this worker's, for PUBSUB NUMSUB and the like. */
  othersCount(key: string): number {
    return key[0] === 'p' ? (this.otherPatterns.patterns.get(key)?.n ?? 0) : (this.others.get(key) ?? 0);
  }

  private report(key: string, n: number): Promise<void> {
    const id = this.nextId++;
    return new Promise<void>((resolve) => {
      this.pending.set(id, resolve);
      this.port.postMessage({ type: 'bus', op: 'count', id, key, n, direct: this.slotsOf(key) });
    });
  }

  /** The socket slots of this worker's subscribers of a channel key that have one. */
  private slotsOf(key: string): number[] | undefined {
    if (key[0] !== 'c' && key[0] !== 's') return undefined;
    let out: number[] | undefined;
    for (const s of this.own.get(key) ?? []) if (s.slot !== undefined && s.slot >= 0) (out ??= []).push(s.slot);
    return out;
  }

  /** Messages from the primary's BusHub on the worker's port. */
  onHubMessage(msg: HubToBus): void {
    if (msg.op === 'in') {
      this.receive(msg.items);
    } else if (msg.op === 'done') {
      const done = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      done?.();
    } else if (msg.op === 'served') {
      for (const id of msg.ids) {
        const a = this.asks.get(id);
        if (a === undefined) continue;
        a.left &= ~kRemoteBit;
        if (a.left === 0) this.answered(id, a);
      }
    } else if (msg.op === 'slots') {
      this.tables = msg.tables.map((b, w) => (b === undefined || w === this.workerIndex ? undefined : new SocketSlots(b)));
    } else if (msg.op === 'view') {
      for (const e of msg.entries) this.applyView(e);
      this.onReady();
      if (msg.id !== undefined) this.port.postMessage({ type: 'bus', op: 'ack', id: msg.id });
    }
  }

  private applyView(e: ViewEntry): void {
    const kind = e.key[0];
    if (kind === 'p') {
      this.otherPatterns.set(e.key, e.others, e.holders);
      this.remotePatterns.set(e.key, e.remote ? 1 : 0);
      return;
    }
    if (e.others > 0) this.others.set(e.key, e.others);
    else this.others.delete(e.key);
    if (e.direct !== undefined) this.direct.set(e.key, e.direct);
    else this.direct.delete(e.key);
    if (e.holders !== 0) this.holders.set(e.key, e.holders);
    else this.holders.delete(e.key);
    if (e.remote) this.remote.add(e.key);
    else this.remote.delete(e.key);
    this.watchers.get(e.key)?.(e.others > 0 || e.remote);
    if (kind === 'k') {
      if (e.others > 0) this.otherKeys.add(e.key); else this.otherKeys.delete(e.key);
      if (e.remote) this.remoteKeys.add(e.key); else this.remoteKeys.delete(e.key);
      this.checkKeysWanted();
    }
  }
}

const kEmpty = Buffer.alloc(0);
const kNoBytes = new Uint8Array(0);
/** an ask's bit for the other instances (worker bits are 0–30) */
const kRemoteBit = 1 << 31;

/** Where the receiving of one frame is: its asks, the next one to match, the counts to answer. */
class Receipt {
  next = 0;
  counts: number[] | undefined = undefined;
  constructor(readonly asks: number[] | undefined, readonly from: number) {}
}
