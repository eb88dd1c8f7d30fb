/**
 * One client connection inside a worker: the socket, its incremental parser, the reply queue.
 *
 *   socket ─data─▶ parser ─argv─▶ table.resolve ─▶ spec.run ─┬─ value ────▶ slot filled at once
 *                                                            └─ Promise ──▶ slot filled later
 *   slots: [done][done][waiting][done]  → the done prefix is encoded and written in one write
 *
 * Replies leave strictly in request order. Reading pauses while the socket's outgoing buffer or
 * the number of unanswered commands is high, so a client that sends without reading cannot grow
 * the server's memory without bound.
 */
import net from 'node:net';
import { RequestParser, kQueryBufferExceeded } from '../protocol/parser';
import { ReplyWriter } from '../protocol/writer';
import { Err } from '../core/engine/resp-errors';
import { RespError, isPromise, kNoReply, writeReply, type Reply } from '../core/engine/reply';
import type { CommandSpec, RunResult } from '../core/engine/commands/spec';
import { PendingReply } from '../core/engine/pending-reply';
import type { QueuedCommand, ServerContext, Session, WatchedKey } from '../core/engine/session';
import { kTransactionControl } from '../core/engine/commands/transactions';
import { kFlagNoAuth, kFlagNoMulti } from '../core/engine/commands/flags';
import { kQueued } from '../core/engine/shared-replies';
import type { WorkerState } from './state';
import { loadNative } from '../core/native';
import { isLocalPeer } from '../core/primary/protected-mode';

const native = loadNative();

interface Slot {
  value: Reply | undefined;
  done: boolean;
  silent: boolean;
  /** protocol when the command ran: a later HELLO must not change how earlier replies encode */
  proto: 2 | 3;
}

/** Pause reading above this many unanswered commands (each holds its argv views). */
const kMaxPendingSlots = 4096;
/** Pause reading while this much output waits in the socket (1 MiB ≈ 1000 1 KiB replies). */
const kOutputHighWater = 1024 * 1024;

/*
 * Reads: every socket of this thread reads into one scratch buffer (net.Socket `onread`; reads
 * run one at a time, each handled before the next) and the bytes are copied out at once, small
 * reads into a shared slab, so that the parser's views stay valid for as long as a command
 * holds them. The default 'data' path allocates a 64 KiB backing store per read and goes through
 * the Readable machinery: leaving it cut PING's CPU per request by a quarter at -P 1 (31 → 24 µs,
 * user time 17 → 10 µs) and by a sixth at -P 16 (docs/BENCHMARKS.md).
 */
const kReadScratch = Buffer.allocUnsafeSlow(64 * 1024);
/** reads under this size share a slab; larger ones get their own buffer */
const kSharedReadMax = 4096;
const kReadSlabSize = 16 * 1024;
let readSlab = Buffer.allocUnsafeSlow(kReadSlabSize);
let readSlabPos = 0;

/** The n bytes just read into kReadScratch, in memory that no later read overwrites. */
function keepRead(n: number): Buffer {
  if (n >= kSharedReadMax) return Buffer.from(kReadScratch.subarray(0, n));
  if (readSlab.length - readSlabPos < n) {
    readSlab = Buffer.allocUnsafeSlow(kReadSlabSize);
    readSlabPos = 0;
  }
  const slab = readSlab;
  const at = readSlabPos;
  // up to ~64 bytes (a command or two) a byte loop beat Buffer#copy, which builds a temporary view
  if (n <= 64) for (let i = 0; i < n; i++) slab[at + i] = kReadScratch[i];
  else kReadScratch.copy(slab, at, 0, n);
  const chunk = slab.subarray(at, at + n);
  readSlabPos = at + n;
  return chunk;
}

export class Client implements Session {
  name = '';
  libName = '';
  libVer = '';
  db = 0;
  proto: 2 | 3 = 2;
  /** Redis's c->authenticated: AUTH / HELLO AUTH succeeded, or the connection began (or was RESET) with no password set */
  private authed = false;
  /** Redis's authRequired(): a password is set and this client has not authenticated (NOAUTH, and the parser's tighter limits) */
  private mustAuth = true;
  replyOff = false;
  skipNext = false;
  noEvict = false;
  noTouch = false;
  multi: QueuedCommand[] | undefined = undefined;
  multiAborted = false;
  watched: WatchedKey[] = [];
  readonly createdAt = Date.now();
  /** performance.now() when the last bytes arrived: a command's latency counts from here */
  private chunkAt = performance.now();
  lastCommand = 'NULL';
  readonly parser: RequestParser;
  private readonly writer = new ReplyWriter();
  private readonly slots: Slot[] = [];
  private slotHead = 0;
  private closing = false;
  private closed = false;
  private ending = false;
  private pausedForBackpressure = false;
  private flushQueued = false;
  private overSoftSince = 0;
  private softTimer: NodeJS.Timeout | undefined = undefined;
  readonly addr: string;
  readonly laddr: string;
  readonly socket: net.Socket;
  readonly local: boolean;

  /** Wraps the descriptor the primary handed over; throws when it cannot be opened. */
  constructor(readonly id: number, readonly fd: number, readonly unix: boolean, readonly server: ServerContext,
    private readonly state: WorkerState) {
    // Node reads `onread` here as in net.connect(); @types/node 20 declares it only for connect
    const opts: net.SocketConstructorOpts & { onread: net.OnReadOpts } =
      { fd, readable: true, writable: true, allowHalfOpen: true, onread: { buffer: kReadScratch, callback: this.onRead } };
    const socket = new net.Socket(opts);
    this.socket = socket;
    this.local = isLocalPeer(unix, socket.remoteAddress);
    const c = server.config;
    this.parser = new RequestParser({
      protoMaxBulkLen: c.int('proto-max-bulk-len'),
      clientQueryBufferLimit: c.int('client-query-buffer-limit'),
    });
    this.authenticated = c.str('requirepass') === '';
    this.addr = unix ? `${c.str('unixsocket')}:0` : `${socket.remoteAddress}:${socket.remotePort}`;
    this.laddr = unix ? `${c.str('unixsocket')}:0` : `${socket.localAddress}:${socket.localPort}`;
    socket.setNoDelay(true);
    this.applyTimeouts();
    socket.on('drain', this.onDrain);
    // a client that shuts down its sending side (nc -N, a script's stdin ending) still gets the
    // replies to everything it sent, as from Redis, including those Postgres has not answered yet
    socket.on('end', () => this.finish());
    socket.on('error', () => this.destroy());
    socket.on('close', () => this.destroy());
    socket.on('timeout', () => this.destroy());
  }

  get authenticated(): boolean {
    return this.authed;
  }

  /**
   * AUTH, HELLO AUTH and RESET set this from inside the parser's sink, synchronously: the parser
   * reads its flag before each request it parses, so `AUTH pw` followed in the same packet by a
   * 21-argument MGET is judged as Redis judges it, after AUTH ran. (A handler that authenticated
   * in a Promise would leave the rest of the packet under the unauthenticated limits.)
   */
  set authenticated(v: boolean) {
    this.authed = v;
    this.applyAuth();
  }

  /** Re-judges authRequired(): after an AUTH state change, and when requirepass changes (CONFIG SET). */
  applyAuth(): void {
    this.mustAuth = !this.authed && this.server.config.str('requirepass') !== '';
    this.parser.authenticated = !this.mustAuth;
  }

  applyTimeouts(): void {
    const c = this.server.config;
    const keepalive = c.int('tcp-keepalive');
    if (!this.unix) this.socket.setKeepAlive(keepalive > 0, keepalive * 1000);
    this.socket.setTimeout(c.int('timeout') * 1000);
  }

  /** `onread` callback: n bytes are in kReadScratch; true keeps reading (pausing is checkBackpressure's). */
  private readonly onRead = (n: number): boolean => {
    if (!this.closing) this.onData(keepRead(n));
    return true;
  };

  private onData(chunk: Buffer): void {
    // one clock read per chunk, for latency and CLIENT LIST idle alike
    this.chunkAt = performance.now();
    this.state.stats.netInputBytes += chunk.length;
    const err = this.parser.push(chunk, this.onCommand);
    if (err !== undefined) {
      if (err === kQueryBufferExceeded) {
        this.state.log(`closing client id=${this.id} that reached max query buffer length`);
        this.destroy();
        return;
      }
      this.enqueueDone(new RespError(`ERR ${err}`), false);
      this.closeAfterReply();
    }
    this.flush();
    this.checkBackpressure();
  }

  private readonly onCommand = (argv: Buffer[]): void => {
    if (this.closing) return;
    const stats = this.state.stats;
    const skipThis = this.skipNext;
    this.skipNext = false;
    const resolved = this.server.commands.resolve(argv);
    if (resolved instanceof RespError) {
      if (this.multi !== undefined) this.multiAborted = true;
      stats.rejectedCalls++;
      this.state.countError(resolved);
      this.enqueueDone(resolved, this.replyOff || skipThis);
      return;
    }
    const spec = resolved;
    if (this.mustAuth && (spec.flagBits & kFlagNoAuth) === 0) {
      stats.rejectedCalls++;
      this.state.countError(Err.noAuth);
      this.enqueueDone(Err.noAuth, this.replyOff || skipThis);
      return;
    }
    if (this.multi !== undefined) {
      if ((spec.flagBits & kFlagNoMulti) !== 0) {
        // refused like Redis's processCommand, and the transaction is flagged: EXEC answers EXECABORT
        this.multiAborted = true;
        stats.rejectedCalls++;
        this.state.countError(Err.notInMulti);
        this.enqueueDone(Err.notInMulti, this.replyOff || skipThis);
        return;
      }
      if (!kTransactionControl.has(spec.name)) {
        // queued, not run: EXEC runs the block as one Postgres transaction
        this.multi.push({ spec, argv });
        this.enqueueDone(kQueued, this.replyOff || skipThis);
        return;
      }
    }
    this.lastCommand = spec.name;
    const started = this.chunkAt;
    let result: RunResult;
    try {
      result = spec.run(this, argv);
    } catch (e) {
      this.state.log(`command ${spec.name} failed: ${(e as Error).stack ?? e}`);
      result = new RespError(`ERR internal error: ${(e as Error).message}`);
    }
    const silent = this.replyOff || skipThis;
    if (result instanceof PendingReply) {
      if (!result.done) {
        const slot: Slot = { value: undefined, done: false, silent, proto: this.proto };
        this.slots.push(slot);
        result.listener = (v) => this.complete(slot, v, spec, started);
        return;
      }
      // answered while being queued (Postgres down): an immediate reply
      result = result.value;
    } else if (isPromise<Reply>(result)) {
      const slot: Slot = { value: undefined, done: false, silent, proto: this.proto };
      this.slots.push(slot);
      result.then(
        (v) => this.complete(slot, v, spec, started),
        (e: Error) => this.complete(slot, new RespError(`ERR ${e.message}`), spec, started));
      return;
    }
    // immediate commands: recorded as taking no time (~1 µs); a clock read per command cost 2-3% of PING throughput
    this.state.record(spec, -1, result);
    this.enqueueDone(result, silent);
  };

  private complete(slot: Slot, value: Reply, spec: CommandSpec, started: number): void {
    this.state.record(spec, started, value);
    slot.value = value;
    slot.done = true;
    if (this.closed) return;
    this.drain();
    if (!this.flushQueued) {
      // many slots finish in one tick when a batch returns: coalesce them into one write
      this.flushQueued = true;
      queueMicrotask(this.flushFromMicrotask);
    }
  }

  private readonly flushFromMicrotask = (): void => {
    this.flushQueued = false;
    this.flush();
    this.checkBackpressure();
  };

  private enqueueDone(value: Reply, silent: boolean): void {
    if (this.slotHead === this.slots.length) {
      if (!silent && value !== kNoReply) {
        this.writer.proto = this.proto;
        writeReply(this.writer, value);
      }
      return;
    }
    this.slots.push({ value, done: true, silent, proto: this.proto });
  }

  /** Encode the finished prefix of the reply queue. */
  private drain(): void {
    const slots = this.slots;
    let i = this.slotHead;
    while (i < slots.length && slots[i].done) {
      const s = slots[i];
      if (!s.silent && s.value !== kNoReply) {
        this.writer.proto = s.proto;
        writeReply(this.writer, s.value!);
      }
      slots[i] = undefined as unknown as Slot;
      i++;
    }
    if (i === slots.length) {
      slots.length = 0;
      this.slotHead = 0;
    } else {
      this.slotHead = i;
      if (i > 1024 && i * 2 > slots.length) {
        slots.splice(0, i);
        this.slotHead = 0;
      }
    }
  }

  get pendingReplies(): number {
    return this.slots.length - this.slotHead;
  }

  flush(): void {
    if (this.closed) return;
    if (this.writer.length > 0) {
      const chunks = this.writer.take();
      let bytes = 0;
      if (chunks.length === 1) {
        bytes = chunks[0].length;
        this.send(chunks[0]);
      } else {
        this.socket.cork();
        for (const c of chunks) { bytes += c.length; this.socket.write(c); }
        this.socket.uncork();
      }
      this.state.stats.netOutputBytes += bytes;
      if (this.checkOutputLimit()) return;
    }
    if (this.closing && this.pendingReplies === 0 && !this.ending) {
      // close once the replies are out, as Redis does after QUIT: a peer that keeps its end open
      // would otherwise stay in CLIENT LIST and hold a descriptor
      this.ending = true;
      this.socket.end(() => this.destroy());
    }
  }

  /**
   * One reply chunk to the socket. While nothing waits in the net.Socket, a direct nonblocking
   * send(2) through the addon: socket.write's Writable path (WriteWrap, the after-write tick) was
   * ~8% of a worker's CPU for -P 16 PING. What send() leaves (socket full: -EAGAIN, or a short
   * send) and any error go through socket.write, which queues it in order or reports the error.
   */
  private send(buf: Buffer): void {
    const socket = this.socket;
    // destroyed: Node may have closed the descriptor already, and its number may be reused
    if (socket.writableLength === 0 && !socket.destroyed && !this.ending) {
      const n = native.sendFd(this.fd, buf);
      if (n === buf.length) return;
      if (n > 0) buf = buf.subarray(n);
    }
    socket.write(buf);
  }

  /** client-output-buffer-limit for normal clients: hard limit closes at once, soft after N seconds. */
  private checkOutputLimit(): boolean {
    const limit = this.state.outputLimit;
    if (limit.hard === 0 && limit.soft === 0) {
      this.overSoftSince = 0;
      return false;
    }
    const queued = this.socket.writableLength;
    const overHard = limit.hard > 0 && queued > limit.hard;
    let overSoft = false;
    if (limit.soft > 0 && queued > limit.soft) {
      const now = Date.now();
      if (this.overSoftSince === 0) this.overSoftSince = now;
      const due = this.overSoftSince + limit.softSeconds * 1000;
      overSoft = now >= due;
      // look again when the time is up even if no reply is written meanwhile: a client that
      // stopped reading after its last command is otherwise never checked (Redis: clientsCron)
      if (!overSoft && this.softTimer === undefined) this.softTimer = setTimeout(this.onSoftTimer, due - now + 10);
    } else {
      this.overSoftSince = 0;
    }
    if (!overHard && !overSoft) return false;
    this.state.log(`client id=${this.id} addr=${this.addr} closed for overcoming of output buffer limits`);
    this.destroy();
    return true;
  }

  private readonly onSoftTimer = (): void => {
    this.softTimer = undefined;
    if (!this.closed) this.checkOutputLimit();
  };

  private checkBackpressure(): void {
    if (this.closed) return;
    const tooMuch = this.socket.writableLength > kOutputHighWater || this.pendingReplies > kMaxPendingSlots;
    if (tooMuch && !this.pausedForBackpressure) {
      this.pausedForBackpressure = true;
      this.socket.pause();
    } else if (!tooMuch && this.pausedForBackpressure && !this.closing) {
      this.pausedForBackpressure = false;
      this.socket.resume();
    }
  }

  private readonly onDrain = (): void => {
    this.checkBackpressure();
  };

  closeAfterReply(): void {
    this.closing = true;
    this.socket.pause();
  }

  /** Graceful shutdown: stop reading, finish what was read, then close. */
  finish(): void {
    this.closeAfterReply();
    this.flush();
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.closing = true;
    if (this.softTimer !== undefined) clearTimeout(this.softTimer);
    this.socket.destroy();
    this.state.onClientClosed(this);
  }

  /** Date.now() of the last read */
  get lastActive(): number {
    return performance.timeOrigin + this.chunkAt;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  reset(): void {
    this.name = '';
    this.db = 0;
    this.proto = 2;
    this.replyOff = false;
    this.skipNext = false;
    this.noEvict = false;
    this.noTouch = false;
    this.multi = undefined;
    this.multiAborted = false;
    this.watched = [];
    this.authenticated = this.server.config.str('requirepass') === '';
  }

  describe(): string {
    const now = Date.now();
    const flags = (this.closing ? 'c' : '') + (this.noEvict ? 'e' : '') + (this.noTouch ? 'T' : '') || 'N';
    return `id=${this.id} addr=${this.addr} laddr=${this.laddr} fd=${this.fd} name=${this.name} ` +
      `age=${Math.floor((now - this.createdAt) / 1000)} idle=${Math.floor((now - this.lastActive) / 1000)} ` +
      `flags=${flags} db=${this.db} sub=0 psub=0 ssub=0 multi=${this.multi?.length ?? -1} qbuf=${this.parser.pending} qbuf-free=0 ` +
      `argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=${this.writer.length} oll=${this.pendingReplies} ` +
      `omem=${this.socket.writableLength} tot-mem=0 events=r cmd=${this.lastCommand} user=default ` +
      `redir=-1 resp=${this.proto} lib-name=${this.libName} lib-ver=${this.libVer}`;
  }
}
