/**
 * The owning side of --shared-lanes: worker 0 takes the SETs the other workers put in their
 * rings (lane-ring.ts) into its own lane's queue, so one lane batches every worker's clients
 * (issue 18: at -c 20 -P 1 two lanes took about 5 commands a batch each; Postgres spent
 * 17.0 µs a row at 5 rows a statement and 11.6 at 10, docs/BENCHMARKS.md), and writes each op's
 * answer back once its statement committed.
 *
 *   ring of worker 1 ──waitAsync(kPub)──▶ take records ─▶ RingWriteOp ─▶ lane (with worker 0's own ops)
 *                    ◀── status, kAnswered++ , notify ◀── settle (after the commit)
 *
 * A replacement owner answers what its predecessor had taken but not answered with an error: it
 * may or may not have committed, as when a lane's connection is lost mid-statement.
 */
import { WriteOp } from '../../core/engine/ops';
import { RespError, type Reply } from '../../core/engine/reply';
import { kOk } from '../../core/engine/shared-replies';
import type { Noted } from '../../core/engine/pending-reply';
import type { Lane } from './lane';
import { storageError } from './replies';
import { LaneRing, kAnswered, kDataBytes, kDataMask, kErrStatus, kHeader, kOkStatus, kOwnerBatch, kPub, kSkip, kSlotMask, kTaken, kTakenBytes, waitAsync } from '../../core/engine/lane-ring';

/** An op of another worker: its answer goes back through the ring. */
class RingWriteOp extends WriteOp {
  constructor(private readonly feed: RingFeed, private readonly seq: number, db: number, key: Buffer, data: Buffer, exp: number | null) {
    super(db, key, data, null, exp);
  }

  override settle(value: Reply | Noted): void {
    if (this.done) return;
    super.settle(value);
    this.feed.answer(this.seq, this.value);
  }
}

export class RingFeed {
  private readonly ring: LaneRing;
  private taken: number;
  private takenBytes: number;
  private notifyScheduled = false;

  constructor(buffer: SharedArrayBuffer, private readonly lane: Lane) {
    this.ring = new LaneRing(buffer);
    const ctl = this.ring.ctl;
    this.taken = Atomics.load(ctl, kTaken);
    this.takenBytes = Atomics.load(ctl, kTakenBytes);
    // taken by a previous owner thread that died before answering (answers go in order)
    const lost = storageError('lane owner worker exited');
    for (let seq = Atomics.load(ctl, kAnswered); seq !== this.taken; seq++) this.answer(seq, lost);
    this.take();
  }

  /** Takes every published record into the lane, then sleeps until the forwarder publishes more. */
  private readonly take = (): void => {
    const ctl = this.ring.ctl;
    const pub = Atomics.load(ctl, kPub);
    const d = this.ring.data;
    while (this.taken !== pub) {
      let at = this.takenBytes & kDataMask;
      let n = d.readUInt32LE(at);
      if (n === kSkip) {
        this.takenBytes += kDataBytes - at;
        at = 0;
        n = d.readUInt32LE(0);
      }
      const db = d.readUInt16LE(at + 4);
      const exp = d.readDoubleLE(at + 8);
      const keyAt = at + kHeader;
      const valueAt = keyAt + d.readUInt32LE(at + 16);
      // copies: the ring's bytes are reused once taken
      const key = Buffer.from(d.subarray(keyAt, valueAt));
      const value = Buffer.from(d.subarray(valueAt, valueAt + d.readUInt32LE(at + 20)));
      this.takenBytes += n;
      this.lane.submit(new RingWriteOp(this, this.taken, db, key, value, Number.isNaN(exp) ? null : exp));
      this.taken++;
    }
    Atomics.store(ctl, kTakenBytes, this.takenBytes);
    Atomics.store(ctl, kTaken, this.taken);
    const w = waitAsync(ctl, kPub, pub);
    if (w.async) void w.value.then(this.take);
    else setImmediate(this.take);
  };

  answer(seq: number, reply: Reply): void {
    const slot = seq & kSlotMask;
    let st = kOkStatus;
    if (reply !== kOk) {
      st = kErrStatus;
      this.ring.setError(slot, reply instanceof RespError ? reply.text : 'ERR internal error: unexpected reply to SET');
    }
    Atomics.store(this.ring.status, slot, st);
    Atomics.add(this.ring.ctl, kAnswered, 1);
    if (!this.notifyScheduled) {
      // one wake-up per run answered: its ops settle in one loop
      this.notifyScheduled = true;
      queueMicrotask(this.wake);
    }
  }

  /** the lane's batch size, for the forwarder's kForwardBelow */
  ownerBatch(ops: number): void {
    Atomics.store(this.ring.ctl, kOwnerBatch, ops);
  }

  private readonly wake = (): void => {
    this.notifyScheduled = false;
    Atomics.notify(this.ring.ctl, kAnswered);
  };
}

/** Feeds lanes[i % lanes] from ring i (index 0, the owner's own, is unused). */
export function startLaneFeeds(rings: readonly (SharedArrayBuffer | undefined)[], lanes: readonly Lane[]): void {
  const feeds = lanes.map((): RingFeed[] => []);
  rings.forEach((buffer, i) => {
    if (buffer !== undefined && i > 0) feeds[i % lanes.length].push(new RingFeed(buffer, lanes[i % lanes.length]));
  });
  lanes.forEach((lane, i) => {
    const mine = feeds[i];
    if (mine.length > 0) lane.onBatch = (ops) => { for (const f of mine) f.ownerBatch(ops); };
  });
}
