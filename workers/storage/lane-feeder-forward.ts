/**
 * The forwarding side of --shared-lanes: a worker that does not own the lane puts its clients'
 * plain SETs into its ring (lane-ring.ts) for the owner's lane to batch with its own, and settles
 * them when the owner's answers arrive. Everything else runs on this worker's lanes as before.
 *
 * A client's commands still execute in the order it sent them: a command goes where its
 * client's previous unanswered command went when it can (ring or lane, each FIFO), and otherwise
 * waits for that command to be answered first:
 *
 *   last unanswered command    this one         goes
 *   none                       plain SET        ring (the lane when the ring is full, or while the
 *                                               owner's batches are large: kForwardBelow)
 *   none                       other            lane
 *   on the lane                any              lane (FIFO behind it)
 *   in the ring                plain SET        ring (FIFO behind it)
 *   in the ring                other            held; on the lane once the ring op answered
 *   held                       any              held behind it
 */
import { OpKind, type Op, type WriteOp } from '../../core/engine/ops';
import { kOk } from '../../core/engine/shared-replies';
import { RespError } from '../../core/engine/reply';
import type { Session } from '../../core/engine/session';
import type { Lane } from './lane';
import {
  LaneRing, kAnswered, kDataBytes, kDataMask, kErrStatus, kForwardBelow, kHeader, kOwnerBatch, kMaxRecord, kOkStatus, kPub, kPubBytes, kSkip, kSlotMask, kSlots,
  kTakenBytes, waitAsync,
} from '../../core/engine/lane-ring';

const kRing = 0;
const kLane = 1;
/** behind a forwarded op that has not answered: on the lane once it has */
const kHeld = 2;

/** where a session's last command went, while it is unanswered */
interface Tail {
  op: Op;
  where: typeof kRing | typeof kLane | typeof kHeld;
  /** kHeld: the ops waiting, in order */
  held: Op[] | undefined;
}

export class RingForwarder {
  private readonly ring: LaneRing;
  private pub: number;
  private pubBytes: number;
  /** forwarded ops not answered yet, oldest first; seq of outstanding[head] is `headSeq` */
  private outstanding: WriteOp[] = [];
  private head = 0;
  private headSeq: number;
  private publishScheduled = false;
  private waiting = false;
  private readonly tails = new WeakMap<Session, Tail>();
  forwarded = 0;

  constructor(buffer: SharedArrayBuffer) {
    this.ring = new LaneRing(buffer);
    // a replacement thread carries on where the last one stopped (its ops are answered to nobody)
    this.pub = Atomics.load(this.ring.ctl, kPub);
    this.pubBytes = Atomics.load(this.ring.ctl, kPubBytes);
    this.headSeq = this.pub;
  }

  /** Runs op on `lane` or through the ring, after the session's earlier commands. */
  submit(s: Session, op: Op, lane: Lane): void {
    const forwardable = op.kind === OpKind.Write && op.key !== null;
    const tail = this.tails.get(s);
    if (tail === undefined || tail.op.done) {
      // a session with nothing outstanding goes to the ring only while the owner's batches are small
      const viaRing = forwardable && Atomics.load(this.ring.ctl, kOwnerBatch) < kForwardBelow && this.put(op as WriteOp);
      if (!viaRing) lane.submit(op);
      // one Tail per session, reused: GETs at -P 16 pass here too
      if (tail === undefined) this.tails.set(s, { op, where: viaRing ? kRing : kLane, held: undefined });
      else {
        tail.op = op;
        tail.where = viaRing ? kRing : kLane;
        tail.held = undefined;
      }
      return;
    }
    if (tail.where === kHeld) tail.held!.push(op);
    else if (tail.where === kLane) lane.submit(op); // the lane keeps order; a SET behind a lane op stays there
    else if (!(forwardable && this.put(op as WriteOp))) {
      // behind a forwarded op: on the lane once that one (and so every earlier one) answered
      const held = [op];
      const before = tail.op;
      tail.where = kHeld;
      tail.held = held;
      const release = (): void => {
        for (const o of held) lane.submit(o);
        if (tail.held === held) {
          tail.where = kLane;
          tail.held = undefined;
        }
      };
      before.then(release, release);
    }
    tail.op = op;
  }

  /** Resolves once the session's forwarded commands answered (a script call starts after them). */
  idle(s: Session): PromiseLike<unknown> | undefined {
    const tail = this.tails.get(s);
    return tail !== undefined && !tail.op.done ? tail.op : undefined;
  }

  /** Copies op into the ring; false when it does not fit (the caller runs it on its lane). */
  private put(op: WriteOp): boolean {
    const key = op.key!;
    const value = op.data!;
    const n = LaneRing.recordBytes(key.length, value.length);
    if (n > kMaxRecord) return false;
    const ctl = this.ring.ctl;
    if (this.pub - Atomics.load(ctl, kAnswered) >= kSlots || this.pub - this.headSeq >= kSlots) return false;
    let at = this.pubBytes & kDataMask;
    const skip = at + n > kDataBytes ? kDataBytes - at : 0;
    if ((this.pubBytes - Atomics.load(ctl, kTakenBytes)) + skip + n > kDataBytes) return false;
    const d = this.ring.data;
    if (skip > 0) {
      d.writeUInt32LE(kSkip, at);
      this.pubBytes += skip;
      at = 0;
    }
    d.writeUInt32LE(n, at);
    d.writeUInt16LE(op.db, at + 4);
    d.writeDoubleLE(op.exp === null ? NaN : op.exp, at + 8);
    d.writeUInt32LE(key.length, at + 16);
    d.writeUInt32LE(value.length, at + 20);
    key.copy(d, at + kHeader);
    value.copy(d, at + kHeader + key.length);
    this.ring.status[this.pub & kSlotMask] = 0;
    this.pubBytes += n;
    this.pub++;
    this.outstanding.push(op);
    this.forwarded++;
    if (!this.publishScheduled) {
      // one wake-up of the owner per event-loop turn, as the lane takes one batch per turn
      this.publishScheduled = true;
      setImmediate(this.publish);
    }
    return true;
  }

  private readonly publish = (): void => {
    this.publishScheduled = false;
    const ctl = this.ring.ctl;
    Atomics.store(ctl, kPubBytes, this.pubBytes);
    Atomics.store(ctl, kPub, this.pub);
    Atomics.notify(ctl, kPub);
    this.awaitAnswers();
  };

  private awaitAnswers(): void {
    if (this.waiting || this.head === this.outstanding.length) return;
    const seen = Atomics.load(this.ring.ctl, kAnswered);
    this.settleAnswered();
    if (this.head === this.outstanding.length) return;
    const w = waitAsync(this.ring.ctl, kAnswered, seen);
    this.waiting = true;
    if (w.async) void w.value.then(this.onAnswers);
    else queueMicrotask(this.onAnswers);
  }

  private readonly onAnswers = (): void => {
    this.waiting = false;
    this.settleAnswered();
    this.awaitAnswers();
  };

  /** Settles the answered ops at the head, in order (the owner answers this ring's ops in order). */
  private settleAnswered(): void {
    const { status } = this.ring;
    const q = this.outstanding;
    while (this.head < q.length) {
      const slot = this.headSeq & kSlotMask;
      const st = Atomics.load(status, slot);
      if (st === 0) break;
      const op = q[this.head];
      q[this.head++] = undefined as unknown as WriteOp;
      this.headSeq++;
      op.settle(st === kOkStatus ? kOk : new RespError(st === kErrStatus ? this.ring.errorText(slot) : 'ERR internal error: bad ring status'));
    }
    if (this.head === q.length) {
      this.outstanding = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > q.length) {
      this.outstanding = q.slice(this.head);
      this.head = 0;
    }
  }
}
