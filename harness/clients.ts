// The load clients of a worker thread: one connection each. Closed loop: send a batch of -P
// commands, wait for all its replies, record send→reply, repeat. Open loop (--rps): send batches
// on a fixed schedule whatever the replies, record intended start→reply (see worker.ts).

import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { buildBatches, prefixCommands, randomize, type Batch } from './encode';
import { keyGen, Rng, type KeyGen } from './keys';
import { kStateRecording, kStateStop, kStatErrors, kStatReplies, type WorkerInit } from './messages';
import type { HarnessOptions } from './options';
import { ReplyScanner } from './scanner';

/** After the run ends, how long in-flight open-loop requests may take before they count as unanswered. */
const kDrainMs = 10_000;
/** Node timers have 1 ms resolution: sleep until 1 ms before a send is due, then spin. */
const kSpinMs = 1;
/** Atomics.wait needs a shared cell to sleep on; nobody ever notifies it. */
const napCell = new Int32Array(new SharedArrayBuffer(4));
/** Per-connection read buffer; smaller when one worker holds many connections (memory). */
const kReadBuffer = 64 * 1024;
const kReadBufferMany = 16 * 1024;

/** What a client needs from its test run (worker.ts's LoadRun). */
export interface RunContext {
  readonly o: HarnessOptions;
  readonly init: WorkerInit;
  readonly stats: Float64Array;
  readonly statBase: number;
  firstError: string | null;
  unanswered: number;
  record(ms: number, count: number, now: number): void;
  takeBudget(commands: number): boolean;
  state(): number;
  clientReady(): void;
  clientFinished(): void;
  fatal(message: string): void;
  target(): string;
  /** False once the run was replaced or aborted: timers stop. */
  live(): boolean;
}

export abstract class Client {
  readonly sock: Socket;
  readonly scanner = new ReplyScanner();
  readonly batches: Batch[];
  readonly keys: KeyGen;
  readonly rng: Rng;
  private prefixPending: number;
  finished = false;

  constructor(protected readonly run: RunContext, readonly id: number) {
    const o = run.o;
    this.rng = new Rng((run.init.seed ^ Math.imul(id + 1, 0x9e3779b1)) >>> 0);
    this.keys = keyGen(o.keyPattern, this.rng, o.keyspace, id, run.init.totalClients, o.keyExponent);
    this.batches = buildBatches(run.init.test, o, this.rng);
    const prefix = prefixCommands(o);
    this.prefixPending = prefix.length;
    // `onread` reads into one buffer per client instead of a new Buffer and a 'data' event per
    // read: it halved the harness's CPU per reply here.
    const size = run.init.clients > 256 ? kReadBufferMany : kReadBuffer;
    const onread = { buffer: Buffer.allocUnsafe(size), callback: (n: number, buf: Buffer): boolean => this.onData(buf, n) };
    this.sock = o.socket !== null ? connect({ path: o.socket, onread }) : connect({ host: o.host, port: o.port, onread });
    this.sock.setNoDelay(true);
    this.sock.on('connect', () => {
      if (prefix.length > 0) this.sock.write(Buffer.concat(prefix));
      else run.clientReady();
    });
    this.sock.on('error', (err) => this.lost(err.message));
    this.sock.on('close', () => this.lost('connection closed by the server'));
  }

  private onData(buf: Buffer, length: number): boolean {
    if (this.finished) return false;
    let n: number;
    const errorsBefore = this.scanner.errors;
    try {
      n = this.scanner.feed(buf, length);
    } catch (err) {
      this.run.fatal((err as Error).message);
      return false;
    }
    if (n > 0) this.consume(n, errorsBefore);
    return true;
  }

  private consume(replies: number, errorsBefore: number): void {
    let n = replies;
    const run = this.run;
    if (this.prefixPending > 0) {
      const k = Math.min(n, this.prefixPending);
      this.prefixPending -= k;
      n -= k;
      if (this.scanner.errors > 0) {
        run.fatal(`${run.target()} replied with error:\n${this.scanner.firstError ?? ''}`);
        return;
      }
      if (this.prefixPending === 0) run.clientReady();
      if (n === 0) return;
    }
    const newErrors = this.scanner.errors - errorsBefore;
    if (newErrors > 0) {
      run.stats[run.statBase + kStatErrors] += newErrors;
      run.firstError ??= this.scanner.firstError;
    }
    run.stats[run.statBase + kStatReplies] += n;
    this.replies(n, performance.now());
  }

  /** Picks a batch, writes fresh keys into it. */
  protected nextBatch(): Batch {
    const b = this.batches.length === 1 ? this.batches[0] : this.batches[Math.floor(this.rng.float() * this.batches.length)];
    if (this.run.o.randomKeys) randomize(b, this.keys);
    return b;
  }

  /** Writes a batch; copies it first if the socket still holds an earlier write of it. */
  protected write(b: Batch): void {
    this.sock.write(this.sock.writableLength > 0 ? Buffer.from(b.buf) : b.buf);
  }

  /** Closes the connection without reporting. */
  close(): void {
    this.finished = true;
    this.sock.removeAllListeners('close');
    this.sock.removeAllListeners('error');
    this.sock.on('error', () => undefined);
    this.sock.destroy();
  }

  finish(): void {
    if (this.finished) return;
    this.close();
    this.run.clientFinished();
  }

  private lost(reason: string): void {
    if (!this.finished) this.run.fatal(`Error: ${reason}`);
  }

  abstract begin(origin: number): void;
  protected abstract replies(n: number, now: number): void;
}

export class ClosedLoopClient extends Client {
  private pending = 0;
  private sentAt = 0;
  private recording = false;

  begin(): void {
    this.send();
  }

  private send(): void {
    const state = this.run.state();
    if (state === kStateStop) return this.finish();
    const b = this.nextBatch();
    this.recording = state === kStateRecording;
    if (this.recording && !this.run.takeBudget(b.commands)) return this.finish();
    this.pending = b.commands;
    this.sentAt = performance.now();
    this.write(b);
  }

  protected replies(n: number, now: number): void {
    if (this.recording) this.run.record(now - this.sentAt, n, now);
    this.pending -= n;
    if (this.pending <= 0) this.send();
  }
}

export class OpenLoopClient extends Client {
  /** FIFO of batches in flight: intended send time (ms), replies left, recorded or not. */
  private intended = new Float64Array(1024);
  private left = new Int32Array(1024);
  private recorded = new Uint8Array(1024);
  private head = 0;
  private size = 0;
  nextDue = Infinity;
  private interval = 0;
  private sending = true;

  begin(origin: number): void {
    const total = this.run.init.totalClients;
    this.interval = (1000 * this.run.o.pipeline) / (this.run.o.rps / total);
    // Stagger the clients over one interval so their sends do not arrive in bursts.
    this.nextDue = origin + (this.interval * this.id) / total;
  }

  /** Sends every batch due by `now`; false once this client will send no more. */
  pump(now: number): boolean {
    while (this.sending && this.nextDue <= now) {
      const state = this.run.state();
      const b = this.nextBatch();
      const recording = state === kStateRecording;
      if (state === kStateStop || (recording && !this.run.takeBudget(b.commands))) {
        this.stopSending();
        break;
      }
      this.push(this.nextDue, b.commands, recording);
      this.write(b);
      this.nextDue += this.interval;
    }
    return this.sending;
  }

  private stopSending(): void {
    this.sending = false;
    this.nextDue = Infinity;
    if (this.size === 0) this.finish();
  }

  /** Drain timeout: what is still in flight is at least this late. Returns the count. */
  abandon(now: number): number {
    let unanswered = 0;
    while (this.size > 0) {
      const i = this.head;
      if (this.recorded[i] === 1) this.run.record(now - this.intended[i], this.left[i], now);
      unanswered += this.left[i];
      this.pop();
    }
    return unanswered;
  }

  protected replies(n: number, now: number): void {
    while (n > 0 && this.size > 0) {
      const i = this.head;
      const k = Math.min(n, this.left[i]);
      if (this.recorded[i] === 1) this.run.record(now - this.intended[i], k, now);
      this.left[i] -= k;
      n -= k;
      if (this.left[i] === 0) this.pop();
    }
    if (!this.sending && this.size === 0) this.finish();
  }

  private push(t: number, commands: number, recording: boolean): void {
    if (this.size === this.intended.length) this.grow();
    const i = (this.head + this.size) % this.intended.length;
    this.intended[i] = t;
    this.left[i] = commands;
    this.recorded[i] = recording ? 1 : 0;
    this.size++;
  }

  private pop(): void {
    this.head = (this.head + 1) % this.intended.length;
    this.size--;
  }

  private grow(): void {
    const cap = this.intended.length;
    const order = (a: Float64Array | Int32Array | Uint8Array): number[] => Array.from({ length: this.size }, (_, k) => a[(this.head + k) % cap]);
    const [t, l, r] = [order(this.intended), order(this.left), order(this.recorded)];
    this.intended = new Float64Array(cap * 2);
    this.left = new Int32Array(cap * 2);
    this.recorded = new Uint8Array(cap * 2);
    this.intended.set(t);
    this.left.set(l);
    this.recorded.set(r);
    this.head = 0;
  }
}

/** The open-loop timer: one per worker, sends what is due, sleeps until the next due time. */
export function schedule(run: RunContext, clients: OpenLoopClient[]): void {
  let stopAt = Infinity;
  const napMs = run.o.napUs / 1000;
  const tick = (): void => {
    if (!run.live()) return;
    const now = performance.now();
    let next = Infinity;
    let active = 0;
    for (const c of clients) {
      if (c.finished) continue;
      if (c.pump(now)) active++;
      if (c.nextDue < next) next = c.nextDue;
    }
    if (active === 0) {
      // Nothing left to send; wait for the replies, up to the drain timeout.
      if (stopAt === Infinity) stopAt = now + kDrainMs;
      if (clients.every((c) => c.finished)) return;
      if (now >= stopAt) {
        for (const c of clients) {
          if (c.finished) continue;
          run.unanswered += c.abandon(now);
          c.finish();
        }
        return;
      }
      setTimeout(tick, 50);
      return;
    }
    const wait = next - performance.now();
    if (wait > kSpinMs + 1) setTimeout(tick, Math.floor(wait - kSpinMs));
    else {
      // --nap: a short blocking sleep instead of a pure spin. Spinning kept a core busy per load
      // thread: on 2 shared cores at 2,000 SET/s that core was the server's (redis-server p99
      // 25-35 ms spinning, 2.5-2.7 ms with 30 µs naps, harness CPU 5.3 s → 2.3 s), at the price
      // of up to one nap of lateness on a send or a reply (p50 0.07 → 0.16 ms), charged as latency.
      if (napMs > 0 && wait > napMs) Atomics.wait(napCell, 0, 0, napMs);
      setImmediate(tick);
    }
  };
  tick();
}

