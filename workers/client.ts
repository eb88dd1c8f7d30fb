/**
 * One client connection inside a worker: its socket, its parser, its session state, and the
 * way out — flushing the reply queue in one write, output limits, backpressure, closing.
 *
 *   socket ─onread─▶ read-slab.ts ─▶ parser ─argv─▶ dispatch.ts ─▶ reply-queue.ts ─▶ flush ─▶ socket
 *                                                                    output-limit.ts ◀─┘
 *
 * Replies leave strictly in request order. Reading pauses while the socket's outgoing buffer or
 * the number of unanswered commands is high, so a client that sends without reading cannot grow
 * the server's memory without bound.
 */
import net from 'node:net';
import { RequestParser, kQueryBufferExceeded } from '../protocol/parser';
import { ReplyWriter } from '../protocol/writer';
import { RespError, type Raw } from '../core/engine/reply';
import { Subscriptions } from '../core/engine/commands/pubsub/subscriptions';
import type { QueuedCommand, ServerContext, WatchedKey } from '../core/engine/session';
import type { BlockedCall } from '../core/engine/commands/blocking/blocked-call';
import type { WorkerState } from './state';
import { loadNative } from '../core/native';
import { isLocalPeer } from '../core/primary/protected-mode';
import { kReadScratch, keepRead } from './read-slab';
import { ReplyQueue } from './reply-queue';
import { OutputLimiter } from './output-limit';
import { dispatch, holdWhile, type DispatchClient } from './dispatch';
import type { CallHold } from './script-join';
import type { User } from '../core/acl/user';
import type { ClientTracking } from '../core/engine/tracking/client-tracking';
import type { TlsServerContext } from '../core/tls/secure-context';
import { wrapTls } from './tls-socket';

const native = loadNative();

/** Pause reading above this many unanswered commands (each holds its argv views). */
const kMaxPendingSlots = 4096;
/** Pause reading while this much output waits in the socket (1 MiB ≈ 1000 1 KiB replies). */
const kOutputHighWater = 1024 * 1024;
/** pushes encoded in one turn past this go to the socket at once (Client.pushed) */
const kPushFlushAt = 64 * 1024;
/**
 * At most this much of a chunk's encoded replies waits for a lane read behind them (holdForLane):
 * 16 pipelined 1 KiB GETs are 17 KB; a larger backlog goes out at once.
 */
const kHoldMax = 256 * 1024;

export class Client implements DispatchClient {
  name = '';
  libName = '';
  libVer = '';
  db = 0;
  proto: 2 | 3 = 2;
  /** Redis's c->authenticated: AUTH / HELLO AUTH succeeded, or the connection began (or was RESET) with no password set */
  private authed = false;
  /** Redis's authRequired(): a password is set and this client has not authenticated (NOAUTH, and the parser's tighter limits) */
  private authRequired = true;
  /** Redis's c->user: the default user until AUTH names another */
  user: User;
  replyOff = false;
  skipNext = false;
  noEvict = false;
  noTouch = false;
  multi: QueuedCommand[] | undefined = undefined;
  multiAborted = false;
  watched: WatchedKey[] = [];
  blocked: BlockedCall | undefined = undefined;
  unackedWrites = 0;
  replySink: ReplyWriter | undefined = undefined;
  /** CLIENT TRACKING on (core/engine/tracking) */
  tracking: ClientTracking | undefined = undefined;
  readonly subscriptions: Subscriptions;
  readonly createdAt = Date.now();
  /** performance.now() when the last bytes arrived: a command's latency counts from here */
  private lastRead = performance.now();
  lastCommand = 'NULL';
  held: Buffer[][] | undefined = undefined;
  calls: CallHold | undefined = undefined;
  readonly parser: RequestParser;
  private readonly writer = new ReplyWriter();
  readonly replies = new ReplyQueue(this.writer);
  private closingNow = false;
  private closed = false;
  private ending = false;
  private pausedForBackpressure = false;
  private flushQueued = false;
  /**
   * The socket slot (core/bus/socket-slots.ts) through which the other workers write this
   * subscriber's channel messages themselves while it owes nothing; -1: none. `deferring`: a
   * publisher's send was short and its rest is on its way: this client's own bytes wait in
   * `deferred` until it was written (remainder()).
   */
  private slot = -1;
  private deferring = false;
  private deferred: Buffer[] = [];
  private readonly outputLimiter = new OutputLimiter(() => {
    if (!this.closed) this.checkOutputLimit();
  });
  readonly addr: string;
  readonly laddr: string;
  readonly socket: net.Socket;
  readonly local: boolean;

  /** Wraps the descriptor the primary handed over; throws when it cannot be opened. */
  constructor(readonly id: number, readonly fd: number, readonly unix: boolean, readonly server: ServerContext,
    readonly state: WorkerState, tls?: TlsServerContext) {
    let socket: net.Socket;
    if (tls === undefined) {
      // Node reads `onread` here as in net.connect(); @types/node 20 declares it only for connect
      const opts: net.SocketConstructorOpts & { onread: net.OnReadOpts } =
        { fd, readable: true, writable: true, allowHalfOpen: true, onread: { buffer: kReadScratch, callback: this.onRead } };
      socket = new net.Socket(opts);
    } else {
      // decrypted records arrive as buffers of their own; send() must not bypass the TLS layer
      socket = wrapTls(fd, tls, (why) => {
        this.state.log(`client id=${id} ${why}`);
        this.destroy();
      });
      socket.on('data', (chunk: Buffer) => { if (!this.closingNow) this.onData(chunk); });
      // replies through the TLS layer: send()'s direct send(2) would put plain text on the wire.
      // An own property of TLS clients only, so plain clients keep main's shape and send()
      this.send = this.sendThroughTls;
    }
    this.socket = socket;
    this.local = isLocalPeer(unix, socket.remoteAddress);
    const c = server.config;
    this.parser = new RequestParser({
      protoMaxBulkLen: c.int('proto-max-bulk-len'),
      clientQueryBufferLimit: c.int('client-query-buffer-limit'),
    });
    this.user = state.acl.defaultUser;
    this.authenticated = !state.acl.defaultNeedsAuth;
    this.addr = unix ? `${c.str('unixsocket')}:0` : `${socket.remoteAddress}:${socket.remotePort}`;
    this.laddr = unix ? `${c.str('unixsocket')}:0` : `${socket.localAddress}:${socket.localPort}`;
    socket.setNoDelay(true);
    this.subscriptions = new Subscriptions(state.bus, this);
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
    this.authRequired = !this.authed && this.server.acl.defaultNeedsAuth;
    this.parser.authenticated = !this.authRequired;
  }

  get mustAuth(): boolean {
    return this.authRequired;
  }

  get closing(): boolean {
    return this.closingNow;
  }

  /** performance.now() when the last bytes arrived: a command's latency counts from here */
  get chunkAt(): number {
    return this.lastRead;
  }

  applyTimeouts(): void {
    const c = this.server.config;
    const keepalive = c.int('tcp-keepalive');
    if (!this.unix) this.socket.setKeepAlive(keepalive > 0, keepalive * 1000);
    this.socket.setTimeout(c.int('timeout') * 1000);
  }

  /** `onread` callback: n bytes are in kReadScratch; true keeps reading (pausing is checkBackpressure's). */
  private readonly onRead = (n: number): boolean => {
    if (!this.closingNow) this.onData(keepRead(n));
    return true;
  };

  private onData(chunk: Buffer): void {
    // one clock read per chunk, for latency and CLIENT LIST idle alike
    this.lastRead = performance.now();
    if (this.slot >= 0) this.claim();
    this.state.stats.netInputBytes += chunk.length;
    const err = this.parser.push(chunk, this.onCommand);
    if (err !== undefined) {
      if (err === kQueryBufferExceeded) {
        this.state.log(`closing client id=${this.id} that reached max query buffer length`);
        this.destroy();
        return;
      }
      this.replies.done(new RespError(`ERR ${err}`), false, this.proto);
      this.closeAfterReply();
    }
    if (!this.holdForLane()) this.flush();
    this.checkBackpressure();
  }

  /**
   * The chunk's replies known at once (read-cache hits, PING) that come before a GET/SET/INCR
   * still waiting for its lane wait for it and leave in the same write (replied() flushes
   * everything when it answers, one round trip later at most). Sent alone, a `-P 16` pipeline
   * with hits ahead of its first miss cost two sends: with the cache on, GET at `-c 50 -P 16
   * -d 1024` ran at 0.87× of the cache off (docs/cache.md). Never behind a blocked pop, a script
   * or a transaction (ReplyQueue.headOnLane), nor while closing.
   */
  private holdForLane(): boolean {
    const n = this.writer.length;
    return n > 0 && n < kHoldMax && !this.closingNow && this.replies.headOnLane;
  }

  private readonly onCommand = (argv: Buffer[]): void => dispatch(this, argv);

  replied(): void {
    if (this.closed) return;
    this.replies.drain();
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

  get pendingReplies(): number {
    return this.replies.pending;
  }

  flush(): void {
    if (this.closed) return;
    if (this.writer.length > 0) {
      const chunks = this.writer.take();
      let bytes = 0;
      if (chunks.length === 1) {
        bytes = chunks[0].length;
        this.send(chunks[0]);
      } else if (this.deferring) {
        for (const c of chunks) { bytes += c.length; this.deferred.push(c); }
      } else {
        this.socket.cork();
        for (const c of chunks) { bytes += c.length; this.socket.write(c); }
        this.socket.uncork();
      }
      this.state.stats.netOutputBytes += bytes;
      if (this.checkOutputLimit()) return;
    }
    if (this.slot >= 0) this.releaseIfIdle();
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
    if (this.deferring) {
      this.deferred.push(buf);
      return;
    }
    const socket = this.socket;
    // destroyed: Node may have closed the descriptor already, and its number may be reused
    if (socket.writableLength === 0 && !socket.destroyed && !this.ending) {
      const n = native.sendFd(this.fd, buf);
      if (n === buf.length) {
        // the kernel has the bytes: the writer may reuse its slab (flush sends one chunk only)
        this.writer.rewind();
        return;
      }
      if (n > 0) buf = buf.subarray(n);
    }
    socket.write(buf);
  }

  private sendThroughTls(buf: Buffer): void {
    this.socket.write(buf);
  }

  /**
   * client-output-buffer-limit (output-limit.ts) of the client's class, pubsub while it holds a
   * subscription (Redis's getClientType): true when it closed the client. `extra`: output
   * encoded but not yet handed to the socket (messages arriving between two flushes).
   */
  private checkOutputLimit(extra = 0): boolean {
    const limit = this.subscriptions.active ? this.state.pubsubLimit : this.state.outputLimit;
    if (!this.outputLimiter.exceeded(this.socket.writableLength + extra, limit)) return false;
    this.state.log(`client id=${this.id} addr=${this.addr} closed for overcoming of output buffer limits`);
    this.destroy();
    return true;
  }

  /**
   * A pub/sub message from the bus: behind the replies still owed (a SUBSCRIBE's own reply
   * first), whatever CLIENT REPLY says. false when the client is closed, or closes now over its
   * output limit: a subscriber that stopped reading goes, the publisher and the others do not wait.
   * CLIENT TRACKING's invalidations come this way too.
   */
  readonly pushFrame = (frame: Raw): boolean => {
    if (this.closed) return false;
    if (this.slot >= 0) this.claim();
    this.replies.done(frame, false, this.proto);
    if (this.checkOutputLimit(this.writer.length)) return false;
    this.replied();
    return true;
  };

  /**
   * A push may go straight into the writer while no reply is owed (Subscriptions.deliver): it
   * then leaves with the other bytes of this turn. undefined while closed or replies are owed.
   */
  pushWriter(): ReplyWriter | undefined {
    if (this.closed || this.replies.pending !== 0) return undefined;
    if (this.slot >= 0) this.claim();
    return this.writer;
  }

  /** Subscriptions' first subscription: a socket slot, so other workers write this client's channel messages (TLS: none). */
  directSlot(): number {
    if (this.slot < 0 && this.send !== this.sendThroughTls && !this.closed) this.slot = this.state.bus.attachSlot(this.fd, this.proto, this);
    return this.slot;
  }

  /** Before this thread writes or queues output: the socket is this worker's alone until releaseIfIdle. */
  private claim(): void {
    if (this.state.bus.slots.take(this.slot)) this.deferring = true;
  }

  /** Nothing owed, nothing queued: the other workers may write this subscriber's socket again. */
  private releaseIfIdle(): void {
    if (this.deferring || this.closingNow || this.flushQueued || !this.subscriptions.active) return;
    if (this.writer.length !== 0 || this.replies.pending !== 0 || this.socket.writableLength !== 0) return;
    this.state.bus.slots.idle(this.slot, this.proto);
  }

  /**
   * The rest of another worker's short send to this socket (socket-slots.ts PARTIAL): it goes
   * out first, then what this client held back meanwhile.
   */
  remainder(bytes: Buffer): void {
    if (this.closed) return;
    this.deferring = false;
    this.socket.write(bytes);
    for (const d of this.deferred) this.socket.write(d);
    this.deferred = [];
    this.state.bus.slots.remainderWritten(this.slot);
    if (this.checkOutputLimit()) return;
    this.flush();
    this.checkBackpressure();
  }

  /**
   * After a push was encoded into pushWriter(): pushFrame's checks, without the frame. The bus
   * hands over a turn's messages together (MessageBus.drainInbox): past 64 KiB they go to the
   * socket now, so the output limit sees what the client has not read, not what this turn
   * encoded (16 messages of 64 KiB in one turn passed a 1 MB limit: pubsub-output-limit.test).
   */
  pushed(): boolean {
    if (this.writer.length >= kPushFlushAt) {
      this.flush();
      if (this.closed) return false;
    }
    if (this.checkOutputLimit(this.writer.length)) return false;
    this.replied();
    return true;
  }

  private checkBackpressure(): void {
    if (this.closed) return;
    const tooMuch = this.socket.writableLength > kOutputHighWater || this.pendingReplies > kMaxPendingSlots;
    if (tooMuch && !this.pausedForBackpressure) {
      this.pausedForBackpressure = true;
      this.socket.pause();
    } else if (!tooMuch && this.pausedForBackpressure && !this.closingNow) {
      this.pausedForBackpressure = false;
      this.socket.resume();
    }
  }

  private readonly onDrain = (): void => {
    this.checkBackpressure();
    if (this.slot >= 0 && !this.closed) this.releaseIfIdle();
  };

  holdWhile(done: PromiseLike<unknown>, queued?: PromiseLike<unknown>): void {
    holdWhile(this, done, queued);
  }

  priorSettled(): Promise<void> | undefined {
    return this.replies.settled();
  }

  closeAfterReply(): void {
    this.closingNow = true;
    this.socket.pause();
  }

  /** Graceful shutdown: stop reading, finish what was read, then close. */
  finish(): void {
    // a blocking command may never answer: Redis frees a client whose read returns 0 at once
    if (this.blocked !== undefined) return this.destroy();
    this.closeAfterReply();
    this.flush();
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.closingNow = true;
    this.outputLimiter.stop();
    this.subscriptions.clear();
    if (this.slot >= 0) {
      // before the descriptor closes: from here no other worker writes it
      this.state.bus.detachSlot(this.slot);
      this.slot = -1;
      this.deferring = false;
    }
    this.state.tracker.closed(this);
    this.socket.destroy();
    this.blocked?.closed();
    this.state.onClientClosed(this);
  }

  /** Date.now() of the last read */
  get lastActive(): number {
    return performance.timeOrigin + this.lastRead;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  reset(): Promise<void> | undefined {
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
    this.state.tracker.disable(this);
    const left = this.subscriptions.clear();
    this.user = this.server.acl.defaultUser;
    this.authenticated = !this.server.acl.defaultNeedsAuth;
    return left;
  }

  describe(): string {
    const now = Date.now();
    const subs = this.subscriptions;
    const t = this.tracking;
    const flags = (subs.active ? 'P' : '') + (this.blocked?.isBlocked ? 'b' : '') + (t !== undefined ? 't' : '') + (t?.broken ? 'R' : '') +
      (t?.bcast ? 'B' : '') + (this.closing ? 'c' : '') + (this.noEvict ? 'e' : '') + (this.noTouch ? 'T' : '') || 'N';
    return `id=${this.id} addr=${this.addr} laddr=${this.laddr} fd=${this.fd} name=${this.name} ` +
      `age=${Math.floor((now - this.createdAt) / 1000)} idle=${Math.floor((now - this.lastActive) / 1000)} ` +
      `flags=${flags} db=${this.db} sub=${subs.size('c')} psub=${subs.size('p')} ssub=${subs.size('s')} multi=${this.multi?.length ?? -1} qbuf=${this.parser.pending} qbuf-free=0 ` +
      `argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=${this.writer.length} oll=${this.pendingReplies} ` +
      `omem=${this.socket.writableLength} tot-mem=0 events=r cmd=${this.lastCommand} user=${this.user.name} ` +
      `redir=${t?.redirect ?? -1} resp=${this.proto} lib-name=${this.libName} lib-ver=${this.libVer}`;
  }
}
