/**
 * The worker pool: Piscina with min = max threads, each running one long-lived `serve` task that
 * owns the connections handed to it. When a worker dies its clients are gone with it (their
 * descriptors close with the thread), Piscina replaces the thread and we submit a new task.
 */
import path from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { BusHub } from '../bus/hub';
import type { Config } from '../config/config';
import type { ConnMessage, ExpiredMessage, ServeTask, WorkerStats, WorkerToPrimary } from '../messages';
import type { ExpiredSink } from './sweeper';
import { Rpc, type RpcHandler } from '../rpc';

export class WorkerSlot {
  readonly clients = new Set<number>();
  port: MessagePort | undefined;
  rpc: Rpc | undefined;
  ready = false;
  /** its write hook has a listener: it wants the sweeper's expired keys */
  hookListening = false;
  restarts = 0;
  /** deaths in a row of threads that lived less than kStableMs: each waits longer to restart */
  quickDeaths = 0;
  startedAt = 0;
  constructor(readonly index: number) {}
}

export interface PoolEvents {
  handler: RpcHandler;
  log(line: string): void;
  /** the message bus's primary end (core/bus/hub.ts): its messages, and workers that die */
  bus?: BusHub;
  /** ACL LIST lines a starting worker loads */
  aclLines?: () => string[];
}

/** A thread that served this long before dying restarts at once; one dying sooner waits. */
const kStableMs = 30_000;
/** 100 ms, doubling per quick death, at most 10 s: a thread that dies at start (a bug, no memory)
 * must not spin the primary on thread creation; one DEBUG PANIC still restarts at once */
export function restartDelay(quickDeaths: number): number {
  return quickDeaths <= 1 ? 0 : Math.min(100 * 2 ** (quickDeaths - 2), 10_000);
}

export class WorkerPool {
  readonly slots: WorkerSlot[];
  private readonly piscina: Piscina;
  private stopping = false;
  private readonly finished: Promise<void>[] = [];

  constructor(private readonly config: Config, private readonly base: Omit<ServeTask, 'port' | 'workerIndex' | 'config'>,
    private readonly events: PoolEvents) {
    const n = config.int('workers');
    this.slots = Array.from({ length: n }, (_, i) => new WorkerSlot(i));
    this.piscina = new Piscina({
      filename: path.resolve(__dirname, '..', '..', 'workers', 'serve.js'),
      minThreads: n,
      maxThreads: n,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      // serve tasks never return until shutdown: Atomics.wait between tasks would only add latency
      atomics: 'disabled',
      concurrentTasksPerWorker: 1,
      maxQueue: 'auto',
    });
  }

  start(): Promise<void> {
    return Promise.all(this.slots.map((s) => this.submit(s))).then(() => undefined);
  }

  /** Submits the serve task for a slot; resolves when that worker reported ready. */
  private submit(slot: WorkerSlot): Promise<void> {
    const { port1, port2 } = new MessageChannel();
    slot.port = port1;
    slot.ready = false;
    slot.startedAt = Date.now();
    let onReady!: () => void;
    const ready = new Promise<void>((r) => (onReady = r));
    const rpc = new Rpc(port1, this.events.handler);
    slot.rpc = rpc;
    port1.on('message', (msg: WorkerToPrimary) => {
      if (rpc.handle(msg)) return;
      if (msg.type === 'closed') slot.clients.delete(msg.id);
      else if (msg.type === 'hook') slot.hookListening = msg.listening;
      else if (msg.type === 'ready') { slot.ready = true; onReady(); }
      else if (msg.type === 'bus') this.events.bus?.onMessage(slot.index, port1, msg);
    });
    const task: ServeTask = { ...this.base, port: port2, workerIndex: slot.index, config: this.config.toRecord(), acl: this.events.aclLines?.() ?? [] };
    const done = this.piscina.run(task, { transferList: [port2] as never }).then(
      () => undefined,
      (err: Error) => {
        // the worker thread died (uncaught error, out of memory): its sockets closed with it
        slot.ready = false;
        slot.hookListening = false;
        rpc.failAll('worker thread exited');
        this.events.bus?.workerGone(slot.index);
        port1.close();
        const lost = slot.clients.size;
        slot.clients.clear();
        if (this.stopping) return;
        slot.restarts++;
        slot.quickDeaths = Date.now() - slot.startedAt < kStableMs ? slot.quickDeaths + 1 : 1;
        const delay = restartDelay(slot.quickDeaths);
        this.events.log(`worker ${slot.index} died (${err.message}); ${lost} client(s) disconnected; restarting it` +
          (delay > 0 ? ` in ${delay} ms (${slot.quickDeaths} deaths within ${kStableMs / 1000} s of a start in a row)` : ''));
        const restart = () => {
          if (this.stopping) return;
          this.submit(slot).catch((e: Error) => this.events.log(`worker ${slot.index} restart failed: ${e.message}`));
        };
        if (delay > 0) setTimeout(restart, delay).unref();
        else restart();
      });
    this.finished.push(done);
    return ready;
  }

  /**
   * The first ready worker with fewer than --worker-fill connections; past that (or with 0), the
   * ready worker with the fewest. Few clients on one thread make larger batches and fewer
   * wake-ups than the same clients spread (docs/BENCHMARKS.md "Filling lanes and workers in order").
   */
  pick(): WorkerSlot | undefined {
    const fill = this.config.int('worker-fill');
    let best: WorkerSlot | undefined;
    for (const s of this.slots) {
      if (!s.ready) continue;
      if (s.clients.size < fill) return s;
      if (best === undefined || s.clients.size < best.clients.size) best = s;
    }
    return best;
  }

  get clientCount(): number {
    let n = 0;
    for (const s of this.slots) n += s.clients.size;
    return n;
  }

  handOff(slot: WorkerSlot, msg: ConnMessage): void {
    slot.clients.add(msg.id);
    slot.port!.postMessage(msg);
  }

  broadcast(msg: object): void {
    for (const s of this.slots) if (s.ready) s.port!.postMessage(msg);
  }

  /** The sweeper's sink: expired keys to the workers whose write hook listens. */
  readonly expired: ExpiredSink = {
    listening: () => this.slots.some((s) => s.ready && s.hookListening),
    report: (dbs, keys) => {
      const all = Buffer.allocUnsafeSlow(keys.reduce((n, k) => n + k.length, 0));
      const ends: number[] = [];
      let at = 0;
      for (const k of keys) { at += k.copy(all, at); ends.push(at); }
      const msg: ExpiredMessage = { type: 'expired', dbs, keys: all, ends };
      for (const s of this.slots) if (s.ready && s.hookListening) s.port!.postMessage(msg);
    },
  };

  /** Ask every ready worker; failed or dead workers contribute nothing. */
  async gather<T>(op: string, args?: unknown): Promise<T[]> {
    const calls = this.slots.filter((s) => s.ready).map((s) => s.rpc!.call<T>(op, args).catch(() => undefined));
    return (await Promise.all(calls)).filter((r): r is Awaited<T> => r !== undefined) as T[];
  }

  async stats(): Promise<WorkerStats[]> {
    return this.gather<WorkerStats>('stats');
  }

  /** Graceful stop: every worker flushes and closes its clients, then the threads end. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    await Promise.race([
      this.gather('shutdown', { timeoutMs }),
      new Promise((r) => setTimeout(r, timeoutMs + 1000).unref()),
    ]);
    await Promise.race([Promise.allSettled(this.finished), new Promise((r) => setTimeout(r, 2000).unref())]);
    await this.piscina.destroy();
  }
}
