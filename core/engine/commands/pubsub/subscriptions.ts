/**
 * One connection's subscriptions (channels, patterns, shard channels) and its end of the message
 * bus: the bus calls deliver() for each message, which becomes a push frame in the client's reply
 * stream. Redis's CLIENT_PUBSUB is `active`: any subscription held; a RESP2 client then may run
 * only the commands of kPubsubContext (workers/dispatch.ts refuses the rest).
 *
 *   SUBSCRIBE ─add()─▶ bus.subscribe ─(every worker and instance knows)─▶ reply
 *   PUBLISH anywhere ─▶ bus ─▶ deliver() ─▶ out(frame) ─▶ reply queue ─▶ socket
 *                                             └ false: over the pubsub output limit, the client closed
 */
import type { MessageBus, Subscriber } from '../../../bus/bus';
import { interestKey, type InterestKind } from '../../../bus/interest';
import { Raw, RespError, RespPush, writeReply, type Reply } from '../../reply';
import { ReplyWriter } from '../../../../protocol/writer';

const kMessage = Buffer.from('message');
const kPmessage = Buffer.from('pmessage');
const kSmessage = Buffer.from('smessage');
/** the same, pre-encoded as bulk strings (a push's first element, either protocol) */
const kMessageBulk = Buffer.from('$7\r\nmessage\r\n');
const kPmessageBulk = Buffer.from('$8\r\npmessage\r\n');
const kSmessageBulk = Buffer.from('$8\r\nsmessage\r\n');

/** Where a connection's push frames go (workers/client.ts). */
export interface PushSink {
  /**
   * The connection's own reply writer when a push may be encoded into it now (no reply owed before
   * it), else undefined: the push then goes through pushFrame, behind the replies still owed.
   */
  pushWriter(): ReplyWriter | undefined;
  /** After a push was encoded into pushWriter(): false when that put the client over its output limit (it closed). */
  pushed(): boolean;
  /** A pre-encoded push behind the replies owed; false when the client is (now) closed. */
  pushFrame(frame: Raw): boolean;
  readonly proto: 2 | 3;
  /**
   * The connection's socket slot (core/bus/socket-slots.ts), made on its first subscription, so
   * that other workers write its channel messages themselves; -1: none (TLS, or none left).
   */
  directSlot(): number;
}

/** What a RESP2 client holding a subscription may run (Redis 7.0's processCommand). */
export const kPubsubContext: ReadonlySet<string> = new Set([
  'subscribe', 'ssubscribe', 'unsubscribe', 'sunsubscribe', 'psubscribe', 'punsubscribe', 'ping', 'quit', 'reset',
]);

export function pubsubOnly(name: string): RespError {
  return new RespError(`ERR Can't execute '${name}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET ` +
    'are allowed in this context');
}

/**
 * The bus hands one message to every subscriber of a worker in a row, with the same Buffers: its
 * frame is encoded once per protocol and the others copy its bytes. In a 1 → 100 fan-out, each
 * delivery built and encoded its own push (array, four bulk headers, the message copied).
 */
class FrameCache {
  private channel: Buffer | undefined = undefined;
  private message: Buffer | undefined = undefined;
  private pattern: Buffer | undefined = undefined;
  private kind = '';
  private readonly frames: (Raw | undefined)[] = [undefined, undefined];
  private readonly writer = new ReplyWriter(256);

  /**
   * true when this is not the message of the last call (it is remembered now): its first
   * subscriber encodes it straight into its writer, the second makes frame() build it once.
   */
  first(kind: 'm' | 's', channel: Buffer, message: Buffer, pattern: Buffer | undefined): boolean {
    if (channel === this.channel && message === this.message && pattern === this.pattern && kind === this.kind) return false;
    this.channel = channel;
    this.message = message;
    this.pattern = pattern;
    this.kind = kind;
    this.frames[0] = this.frames[1] = undefined;
    return true;
  }

  frame(kind: 'm' | 's', channel: Buffer, message: Buffer, pattern: Buffer | undefined, proto: 2 | 3): Raw {
    this.first(kind, channel, message, pattern);
    let raw = this.frames[proto - 2];
    if (raw === undefined) {
      const push: Reply = pattern !== undefined ? new RespPush([kPmessage, pattern, channel, message])
        : new RespPush([kind === 's' ? kSmessage : kMessage, channel, message]);
      this.writer.proto = proto;
      writeReply(this.writer, push);
      const chunks = this.writer.take();
      // take() never hands out bytes it will overwrite: the chunk is ours to keep
      raw = this.frames[proto - 2] = new Raw(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    }
    return raw;
  }
}

const kFrames = new FrameCache();

export class Subscriptions implements Subscriber {
  /** interest key (core/bus/interest.ts) → the name, per kind */
  private readonly held: Record<InterestKind, Map<string, Buffer>> = { c: new Map(), p: new Map(), s: new Map() };
  /** Redis's CLIENT_PUBSUB */
  active = false;
  /** the connection's socket slot (Subscriber.slot), once it subscribed */
  slot = -1;

  constructor(private readonly bus: MessageBus, private readonly sink: PushSink) {}

  size(kind: InterestKind): number {
    return this.held[kind].size;
  }

  /** The count a (P|S)(UN)SUBSCRIBE frame carries: channels + patterns, or shard channels alone. */
  countFor(kind: InterestKind): number {
    return kind === 's' ? this.held.s.size : this.held.c.size + this.held.p.size;
  }

  /** A new subscription: resolves once the whole bus delivers it here; undefined when held already. */
  add(kind: InterestKind, name: Buffer): Promise<void> | undefined {
    const key = interestKey(kind, name);
    const m = this.held[kind];
    if (m.has(key)) return undefined;
    const own = Buffer.from(name);
    m.set(key, own);
    this.active = true;
    if (this.slot < 0 && kind !== 'p') this.slot = this.sink.directSlot();
    return this.bus.subscribe(kind, own, this);
  }

  /** Resolves once no worker or instance counts it any more; undefined when it was not held. */
  remove(kind: InterestKind, name: Buffer): Promise<void> | undefined {
    if (!this.held[kind].delete(interestKey(kind, name))) return undefined;
    this.active = this.held.c.size + this.held.p.size + this.held.s.size > 0;
    return this.bus.leave(kind, name, this);
  }

  names(kind: InterestKind): Buffer[] {
    return [...this.held[kind].values()];
  }

  /**
   * RESET and a closed connection: every subscription goes, without a reply. Resolves, like
   * remove(), once no worker or instance counts them (RESET answers then); undefined when none.
   */
  clear(): Promise<void> | undefined {
    const waits: Promise<void>[] = [];
    for (const kind of ['c', 'p', 's'] as const) {
      for (const name of this.held[kind].values()) {
        const w = this.bus.leave(kind, name, this);
        if (w !== undefined) waits.push(w);
      }
      this.held[kind].clear();
    }
    this.active = false;
    return waits.length === 0 ? undefined : Promise.all(waits).then(() => undefined);
  }

  /**
   * A subscriber that owes no reply (the usual case) gets the push encoded straight into its
   * writer: the frame built per message, then copied, was ~10% of the receiving worker's time
   * at 20k msgs/s (allocating its Buffer, the RespPush, the Raw; profile in docs/messaging.md);
   * 1.0 instead of 1.3–1.9 µs CPU a 1 KB delivery in a loop. From a message's second subscriber
   * on (fan-out), copying the frame built once is cheaper than encoding again (~320 vs ~360 ns a
   * delivery to 50 subscribers). The writer's bytes go out in one write per turn of the loop
   * (Client.replied).
   */
  deliver(kind: 'm' | 's', channel: Buffer, message: Buffer, pattern?: Buffer): boolean {
    const sink = this.sink;
    const w = sink.pushWriter();
    if (w === undefined) return sink.pushFrame(kFrames.frame(kind, channel, message, pattern, sink.proto));
    if (!kFrames.first(kind, channel, message, pattern)) {
      w.raw(kFrames.frame(kind, channel, message, pattern, sink.proto).bytes);
      return sink.pushed();
    }
    w.proto = sink.proto;
    if (pattern !== undefined) {
      w.push(4);
      w.raw(kPmessageBulk);
      w.bulk(pattern);
    } else {
      w.push(3);
      w.raw(kind === 's' ? kSmessageBulk : kMessageBulk);
    }
    w.bulk(channel);
    w.bulk(message);
    return sink.pushed();
  }
}
