/**
 * A connection's replies in request order. A reply known at once is encoded straight into the
 * writer while nothing waits before it; otherwise it takes a slot behind the ones still waiting
 * for Postgres, and each fill encodes the finished prefix:
 *
 *   slots: [done][done][waiting][done]  → the done prefix is encoded; the rest waits its turn
 */
import type { ReplyWriter } from '../protocol/writer';
import { kNoReply, Pushes, writeReply, type Raw, type Reply } from '../core/engine/reply';

export class ReplySlot {
  value: Reply | undefined = undefined;
  done = false;
  /** push frames right behind this reply (CLIENT TRACKING's invalidations of the command's own writes), sent even when silent */
  after: Raw[] | undefined = undefined;
  /** called once this reply is encoded, i.e. every command before it and itself completed (ReplyQueue.settled) */
  drained: (() => void) | undefined = undefined;
  /**
   * silent: CLIENT REPLY OFF/SKIP; proto: the protocol when the command ran (a later HELLO must
   * not change how earlier replies encode); lane: filled by one short Postgres round trip of the
   * client's lane (dispatch's isShortOp), not by something that may wait without bound (BLPOP,
   * WAIT, a script, CLIENT PAUSE)
   */
  constructor(readonly silent: boolean, readonly proto: 2 | 3, readonly lane = false) {}
}

/** Past this many spent slots at the head (and half the array), they are cut off. */
const kCompactAfter = 1024;

export class ReplyQueue {
  private slots: ReplySlot[] = [];
  private head = 0;

  constructor(private readonly writer: ReplyWriter) {}

  /** replies still owed, waiting or done behind a waiting one */
  get pending(): number {
    return this.slots.length - this.head;
  }

  /**
   * Resolves once every reply owed now is encoded (the commands behind them completed, their
   * write-hook reports made); undefined when none is owed.
   */
  settled(): Promise<void> | undefined {
    if (this.head === this.slots.length) return undefined;
    const last = this.slots[this.slots.length - 1];
    return new Promise<void>((resolve) => {
      const before = last.drained;
      last.drained = before === undefined ? resolve : () => { before(); resolve(); };
    });
  }

  /**
   * The oldest reply still owed waits for a lane round trip: the replies already encoded (all
   * from before it) can wait for it and leave in one write with it (Client.holdForLane).
   */
  get headOnLane(): boolean {
    return this.head < this.slots.length && !this.slots[this.head].done && this.slots[this.head].lane;
  }

  /**
   * The writer, when a reply known now would be encoded into it at once (nothing owed before
   * it): a read-cache hit's bulk string (the same in RESP2 and 3) is copied straight into it
   * (Session.replySink).
   */
  writerNow(): ReplyWriter | undefined {
    return this.head === this.slots.length ? this.writer : undefined;
  }

  /** A reply known now. */
  done(value: Reply, silent: boolean, proto: 2 | 3): void {
    if (this.head === this.slots.length) {
      if ((!silent || value instanceof Pushes) && value !== kNoReply) {
        this.writer.proto = proto;
        writeReply(this.writer, value);
      }
      return;
    }
    const slot = new ReplySlot(silent, proto);
    slot.value = value;
    slot.done = true;
    this.slots.push(slot);
  }

  /** A slot for a reply that comes later; fill() it, then drain(). */
  open(silent: boolean, proto: 2 | 3, lane = false): ReplySlot {
    const slot = new ReplySlot(silent, proto, lane);
    this.slots.push(slot);
    return slot;
  }

  fill(slot: ReplySlot, value: Reply): void {
    slot.value = value;
    slot.done = true;
  }

  /** Encodes the finished prefix into the writer. */
  drain(): void {
    const slots = this.slots;
    let i = this.head;
    while (i < slots.length && slots[i].done) {
      const s = slots[i];
      if ((!s.silent || s.value instanceof Pushes) && s.value !== kNoReply) {
        this.writer.proto = s.proto;
        writeReply(this.writer, s.value!);
      }
      if (s.after !== undefined) for (const f of s.after) this.writer.raw(f.bytes);
      slots[i] = undefined as unknown as ReplySlot;
      s.drained?.();
      i++;
    }
    if (i === slots.length) {
      slots.length = 0;
      this.head = 0;
    } else {
      this.head = i;
      if (i > kCompactAfter && i * 2 > slots.length) {
        slots.splice(0, i);
        this.head = 0;
      }
    }
  }
}
