/**
 * BusHub: the primary thread's part of the message bus. It keeps who wants what in this process
 * (per worker, per interest key), tells every worker what the others want (so a worker decides
 * alone where a message goes), registers the process's interest with other instances through the
 * Postgres link (core/bus/pg-link.ts), and hands what arrives from them to the workers that want
 * it. Data between workers of the process never passes here (BroadcastChannel, core/bus/bus.ts).
 *
 *   count(w, key, n) ─▶ counts[key][w] = n ─▶ view{others, remote} to each other worker, acks
 *                       first subscriber in the process ─▶ link.addInterest (other instances ack)
 *                       last one gone ─▶ link.removeInterest (blocked keys linger, see below)
 *                    ◀─ done ─ only then: SUBSCRIBE / BLPOP can rely on it
 */
import { globMatch } from '../engine/glob';
import type { BusItem } from './codec';
import { interestKey, kBusReconnected, PatternSet } from './interest';

const kReconnectedKey = interestKey('s', kBusReconnected);
const kNoToken = Buffer.alloc(0);
import { itemsFromWire, itemsToWire, type BusToHub, type HubToBus, type ScriptKind, type ViewEntry } from './messages';

export interface HubPort {
  postMessage(msg: HubToBus): void;
}

/** What the hub needs from the link to other instances (PgLink, or nothing in one process). The
 * hub sets the callbacks in its constructor: make it before the link starts. */
export interface RemoteLink {
  send(items: BusItem[]): void;
  addInterest(key: string): Promise<void>;
  removeInterest(key: string): void;
  /** set by the hub: messages from other instances, in their order */
  onItems?: (items: BusItem[]) => void;
  /** set by the hub: whether any other instance wants key changed; resolves once every worker knows */
  onRemoteInterest?: (key: string, present: boolean) => Promise<void>;
  /** set by the hub: the link was down and is back; wake-ups sent meanwhile were lost */
  onReconnected?: () => void;
  /** set by the hub: an instance acknowledged this one's interest in key only after the timeout */
  onLateAck?: (key: string) => void;
  /** the woken clients of `tokens` (a 'w' item's b, from instance `to`) were served here: answer it */
  served?(to: string, tokens: string): void;
  /** set by the hub: other instances served the clients this one's tokens woke (or gave up) */
  onServed?: (tokens: string[]) => void;
  /** tells every other instance to stop its killable calls of kind (SCRIPT/FUNCTION KILL) */
  kill?(kind: ScriptKind): void;
  /** set by the hub: another instance asked to stop this one's calls of kind */
  onKill?: (kind: ScriptKind) => void;
}

export interface HubOptions {
  log(line: string): void;
  /** a worker that does not acknowledge a view within this is taken as busy or dying */
  ackTimeoutMs?: number;
  /** a blocked-key interest stays registered this long after its last waiter (BRPOP loops) */
  keyLingerMs?: number;
  /** another instance's SCRIPT/FUNCTION KILL: stop this process's killable calls of kind */
  killScripts?: (kind: ScriptKind) => void;
}

// keyLingerMs: a loop that re-blocks at once (a BRPOP timed out or served: one client round trip,
// well under 1 ms) keeps its key registered; one that lingers costs every push to the key on
// another instance a NOTIFY and a wait for this instance's S answer, and holds the pusher's
// pipelined commands meanwhile (push-gate.ts): so not 30 s (the old value) but 250 ms
const kDefaults = { ackTimeoutMs: 1000, keyLingerMs: 250 };

export class BusHub {
  private readonly ports = new Map<number, HubPort>();
  private readonly counts = new Map<string, Map<number, number>>();
  /** the pattern keys of counts with their Buffer: what a message from another instance is matched against */
  private readonly patterns = new Map<string, Buffer>();
  private readonly remote = new Set<string>();
  private readonly remotePatterns = new PatternSet();
  private readonly acks = new Map<number, { left: Set<number>; done: () => void }>();
  private readonly linger = new Map<string, NodeJS.Timeout>();
  private readonly registered = new Set<string>();
  /** registrations not yet acknowledged by every other instance (link.addInterest in flight) */
  private readonly registering = new Map<string, Promise<void>>();
  private nextAck = 1;
  private readonly opts: Required<Omit<HubOptions, 'killScripts'>>;

  constructor(options: HubOptions, private readonly link?: RemoteLink) {
    this.opts = { ...kDefaults, ...options };
    if (link) {
      link.onItems = (items) => this.fromRemote(items);
      link.onRemoteInterest = (key, present) => this.remoteChanged(key, present);
      link.onReconnected = () => this.wakeAll();
      link.onLateAck = (key) => this.wakeLate(key);
      link.onKill = (kind) => options.killScripts?.(kind);
      link.onServed = (tokens) => this.servedRemote(tokens);
    }
  }

  /** A message on worker w's port (port: where to answer; it changes when w is replaced). */
  onMessage(w: number, port: HubPort, msg: BusToHub): void {
    switch (msg.op) {
      case 'hello':
        this.workerGone(w);
        this.ports.set(w, port);
        if (msg.slots !== undefined) this.slotTables[w] = msg.slots;
        // the tables first: the view may name slots of them
        this.sendSlotTables();
        port.postMessage({ type: 'bus', op: 'view', entries: this.snapshot(w) });
        break;
      case 'count':
        this.setDirect(w, msg.key, msg.n > 0 ? msg.direct : undefined);
        void this.count(w, msg.key, msg.n).then(() => this.ports.get(w)?.postMessage({ type: 'bus', op: 'done', id: msg.id }));
        break;
      case 'ack':
        this.ack(msg.id, w);
        break;
      case 'out':
        this.out(w, itemsFromWire(msg.items));
        break;
      case 'served':
        this.servedHere(w, msg.id);
        break;
      case 'kill':
        this.link?.kill?.(msg.kind);
        break;
    }
  }

  /** Worker w died or was replaced: what it wanted is gone. */
  workerGone(w: number): void {
    if (!this.ports.delete(w)) return;
    if (this.slotTables[w] !== undefined) {
      this.slotTables[w] = undefined;
      this.sendSlotTables();
    }
    for (const per of this.direct.values()) per.delete(w);
    for (const [key, per] of this.counts) if (per.has(w)) void this.count(w, key, 0);
    for (const [id, a] of this.acks) if (a.left.delete(w) && a.left.size === 0) this.finishAck(id);
    for (const id of [...this.serving.keys()]) this.servedHere(w, id);
  }

  // ------------------------------------------- a push waiting for the clients it wakes elsewhere

  /** other instances' pushes whose woken clients this process's workers are trying: id → whom to answer */
  private readonly serving = new Map<number, { from: string; tokens: string; left: Set<number> }>();
  private nextServing = 1;

  /**
   * A worker's items for other instances. A wake-up that a push waits on (wakeServed) carries the
   * worker's ask id: it becomes `<worker>.<id>`, the token the woken instance answers (S, pg-link).
   */
  private out(w: number, items: BusItem[]): void {
    let unanswered: number[] | undefined;
    for (const it of items) {
      if (it.kind !== 'w' || it.b.length === 0) continue;
      if (this.link?.served === undefined) (unanswered ??= []).push(Number(it.b.toString('latin1')));
      else it.b = Buffer.from(`${w}.${it.b.toString('latin1')}`, 'latin1');
    }
    if (unanswered !== undefined) this.ports.get(w)?.postMessage({ type: 'bus', op: 'served', ids: unanswered });
    this.link?.send(items);
  }

  /** Tokens answered by the other instances (or given up on): to the workers that asked. */
  private servedRemote(tokens: string[]): void {
    const byWorker = new Map<number, number[]>();
    for (const t of tokens) {
      const dot = t.indexOf('.');
      const w = Number(t.slice(0, dot));
      let ids = byWorker.get(w);
      if (!ids) byWorker.set(w, ids = []);
      ids.push(Number(t.slice(dot + 1)));
    }
    for (const [w, ids] of byWorker) this.ports.get(w)?.postMessage({ type: 'bus', op: 'served', ids });
  }

  /** Worker w's woken clients of serving id tried again (or w is gone). */
  private servedHere(w: number, id: number): void {
    const s = this.serving.get(id);
    if (s === undefined || !s.left.delete(w) || s.left.size > 0) return;
    this.serving.delete(id);
    this.link?.served?.(s.from, s.tokens);
  }

  /** Interest keys this process holds (tests, INFO). */
  keys(): string[] {
    return [...this.counts.keys()];
  }

  private total(key: string): number {
    let n = 0;
    for (const v of this.counts.get(key)?.values() ?? []) n += v;
    return n;
  }

  private async count(w: number, key: string, n: number): Promise<void> {
    const before = this.total(key);
    let per = this.counts.get(key);
    if (n > 0) {
      if (!per) {
        this.counts.set(key, per = new Map());
        if (key[0] === 'p') this.patterns.set(key, Buffer.from(key.slice(1), 'latin1'));
      }
      per.set(w, n);
    } else if (per) {
      per.delete(w);
      if (per.size === 0) {
        this.counts.delete(key);
        this.patterns.delete(key);
      }
    }
    const after = this.total(key);
    const views = [...this.ports.keys()].filter((v) => v !== w);
    await this.sendViews(views, key);
    if (before === 0 && after > 0) await this.register(key);
    else if (before > 0 && after === 0) this.unregister(key);
    // another holder of the process made the key's registration and it is still in flight: this
    // one waits for it too, or its BLPOP/SUBSCRIBE would count as known to every instance while a
    // push there still went nowhere (the second of two XREAD BLOCKs on one key never woke: a
    // blocking.test flake at load 17–30)
    else if (after > 0) await this.registering.get(key);
  }

  private entry(key: string, v: number): ViewEntry {
    const per = this.counts.get(key);
    let holders = 0;
    // bits for workers 0–30; beyond, PUBLISH counts from `others` alone (bus.ts publishCounted)
    for (const [w, n] of per ?? []) if (w !== v && n > 0 && w < 31) holders |= 1 << w;
    const e: ViewEntry = { key, others: this.total(key) - (per?.get(v) ?? 0), holders, remote: this.remoteHas(key) };
    const direct = this.direct.get(key);
    if (direct !== undefined && per !== undefined) {
      const flat: number[] = [];
      for (const [w, slots] of direct) {
        const n = per.get(w) ?? 0;
        if (w === v || n === 0 || this.slotTables[w] === undefined) continue;
        flat.push(w, n - slots.length, slots.length, ...slots);
      }
      if (flat.length > 0) e.direct = flat;
    }
    return e;
  }

  // ------------------------------------------- subscribers other workers write themselves

  /** each worker's socket slot table (core/bus/socket-slots.ts), by index */
  private readonly slotTables: (SharedArrayBuffer | undefined)[] = [];
  /** channel key → worker → the socket slots of its subscribers that have one */
  private readonly direct = new Map<string, Map<number, number[]>>();

  private setDirect(w: number, key: string, slots: number[] | undefined): void {
    let per = this.direct.get(key);
    if (slots === undefined || slots.length === 0) {
      if (per?.delete(w) && per.size === 0) this.direct.delete(key);
      return;
    }
    if (!per) this.direct.set(key, per = new Map());
    per.set(w, slots);
  }

  private sendSlotTables(): void {
    for (const port of this.ports.values()) port.postMessage({ type: 'bus', op: 'slots', tables: [...this.slotTables] });
  }

  private remoteHas(key: string): boolean {
    return key[0] === 'p' ? this.remotePatterns.patterns.has(key) : this.remote.has(key);
  }

  /** Sends each worker its view of key; resolves when all acknowledged (or the timeout). */
  private sendViews(workers: number[], key: string): Promise<void> {
    if (workers.length === 0) return Promise.resolve();
    const id = this.nextAck++;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.opts.log(`bus: worker(s) ${[...(this.acks.get(id)?.left ?? [])].join(',')} did not acknowledge an interest change within ${this.opts.ackTimeoutMs} ms`);
        this.finishAck(id);
      }, this.opts.ackTimeoutMs);
      timer.unref();
      this.acks.set(id, { left: new Set(workers), done: () => { clearTimeout(timer); resolve(); } });
      for (const v of workers) this.ports.get(v)!.postMessage({ type: 'bus', op: 'view', entries: [this.entry(key, v)], id });
    });
  }

  private ack(id: number, w: number): void {
    const a = this.acks.get(id);
    if (a && a.left.delete(w) && a.left.size === 0) this.finishAck(id);
  }

  private finishAck(id: number): void {
    const a = this.acks.get(id);
    this.acks.delete(id);
    a?.done();
  }

  private snapshot(w: number): ViewEntry[] {
    const keys = new Set([...this.counts.keys(), ...this.remote, ...this.remotePatterns.patterns.keys()]);
    return [...keys].map((k) => this.entry(k, w));
  }

  private async register(key: string): Promise<void> {
    const t = this.linger.get(key);
    if (t) {
      clearTimeout(t);
      this.linger.delete(key);
    }
    if (this.registered.has(key)) return this.registering.get(key);
    this.registered.add(key);
    const acked = this.link?.addInterest(key);
    if (acked === undefined) return;
    this.registering.set(key, acked);
    await acked;
    if (this.registering.get(key) === acked) this.registering.delete(key);
  }

  private unregister(key: string): void {
    if (!this.registered.has(key)) return;
    const go = () => {
      this.linger.delete(key);
      if (this.total(key) > 0) return;
      this.registered.delete(key);
      this.registering.delete(key);
      this.link?.removeInterest(key);
    };
    // BRPOP in a loop leaves and re-enters the same key: keep it registered a moment (keyLingerMs),
    // so re-blocking at once costs no interest change (at most a needless wake-up meanwhile)
    if (key[0] !== 'k' || this.opts.keyLingerMs <= 0) return go();
    const t = setTimeout(go, this.opts.keyLingerMs);
    t.unref();
    this.linger.set(key, t);
  }

  private async remoteChanged(key: string, present: boolean): Promise<void> {
    if (key[0] === 'p') this.remotePatterns.set(key, present ? 1 : 0);
    else if (present) this.remote.add(key);
    else this.remote.delete(key);
    await this.sendViews([...this.ports.keys()], key);
  }

  /** The clients blocked on an interest key ('k<db>:<key>') look again: an instance that learned
   * of it late (pg-link's onLateAck) may have committed a push in between without telling us. */
  private wakeLate(key: string): void {
    if (key[0] !== 'k' || !this.counts.has(key)) return;
    const colon = key.indexOf(':');
    this.fromRemote([{ kind: 'w', db: Number(key.slice(1, colon)), a: Buffer.from(key.slice(colon + 1), 'latin1'), b: Buffer.alloc(0) }]);
  }

  /** Every blocked client of this process re-checks its key: a push on another instance while
   * the link was down woke nobody here. And the workers holding kBusReconnected (CLIENT TRACKING)
   * hear that messages may have been lost. */
  private wakeAll(): void {
    const items: BusItem[] = [];
    for (const key of this.counts.keys()) {
      if (key[0] !== 'k') continue;
      const colon = key.indexOf(':');
      items.push({ kind: 'w', db: Number(key.slice(1, colon)), a: Buffer.from(key.slice(colon + 1), 'latin1'), b: Buffer.alloc(0) });
    }
    if (this.counts.has(kReconnectedKey)) items.push({ kind: 's', db: 0, a: kBusReconnected, b: Buffer.alloc(0) });
    if (items.length > 0) this.fromRemote(items);
  }

  /**
   * Items from other instances, to the workers that want them, in order. A wake-up whose pushes
   * wait (tokens in b) goes to its workers with a serving id instead; the sender is answered once
   * each of them answered (at once when none holds the key: a lingering interest, or it left).
   */
  private fromRemote(items: BusItem[]): void {
    for (let i = 0; i < items.length; i++) {
      const it = items[i]!;
      if (it.kind !== 'w' || it.b.length === 0) continue;
      const left = new Set<number>();
      for (const w of this.ports.keys()) if (this.wants(w, it)) left.add(w);
      if (left.size === 0) {
        if (it.from !== undefined) this.link?.served?.(it.from, it.b.toString('latin1'));
        items[i] = { kind: 'w', db: it.db, a: it.a, b: kNoToken };
        continue;
      }
      const id = this.nextServing++;
      if (it.from !== undefined) this.serving.set(id, { from: it.from, tokens: it.b.toString('latin1'), left });
      items[i] = { kind: 'w', db: it.db, a: it.a, b: Buffer.from(String(id), 'latin1') };
    }
    for (const [w, port] of this.ports) {
      const mine = items.filter((it) => this.wants(w, it));
      if (mine.length > 0) port.postMessage({ type: 'bus', op: 'in', items: itemsToWire(mine) });
    }
  }

  private wants(w: number, it: BusItem): boolean {
    if (it.kind === 'w') return (this.counts.get(`k${it.db}:${it.a.toString('latin1')}`)?.get(w) ?? 0) > 0;
    const key = (it.kind === 's' ? 's' : 'c') + it.a.toString('latin1');
    if ((this.counts.get(key)?.get(w) ?? 0) > 0) return true;
    if (it.kind === 's') return false;
    for (const [k, pattern] of this.patterns) if ((this.counts.get(k)?.get(w) ?? 0) > 0 && globMatch(pattern, it.a)) return true;
    return false;
  }

  close(): void {
    for (const t of this.linger.values()) clearTimeout(t);
    this.linger.clear();
    for (const id of [...this.acks.keys()]) this.finishAck(id);
  }
}
