/**
 * A worker's rings to and from the other workers of its process (docs/messaging.md, "Inside one
 * process"): the MessageBus hands send() a turn's items and asks, each item goes to the workers
 * the view names (`recipients`, holder bits), one frame per reader in that reader's ring
 * (ring.ts); frames from the others come back through `deliver`. The process's BroadcastChannel
 * carries the rest: a ring's set-up, a restarted worker's hello, frames too large for a ring.
 */
import type { BroadcastChannel } from 'node:worker_threads';
import type { ItemKind } from './codec';
import { asBuffer, type WireItems } from './messages';
import { kRingFrameMax, newRing, RingReader, RingWriter } from './ring';
import { decodeRingFrame, encodeRingFrame } from './ring-frame';

/** what a writer holds for one reader whose ring is full; past it, frames are dropped */
const kBacklogMax = 64 * 1024 * 1024;

/** this worker's ring to one other worker: frames (or out-of-band markers) that did not fit yet wait in order */
interface RingOut { ring: RingWriter; backlog: (Buffer | number)[]; backlogBytes: number; oobSeq: number }
/** another worker's ring to this one; frames too large for it arrive on the channel */
interface RingIn { reader: RingReader; oob: Map<number, Buffer>; waiting: number }

/** Ring set-up, a restarted worker, and frames too large for a ring, on the BroadcastChannel. */
export type RingControl =
  | { hello: number }
  | { ring: SharedArrayBuffer; from: number; to: number }
  | { oob: number; from: number; to: number; frame: Uint8Array };

const kNoAsks: number[] = [];
const kNoItems: WireItems = [];

export class RingLinks {
  private readonly out = new Map<number, RingOut>();
  private readonly in = new Map<number, RingIn>();
  private backlogTimer: NodeJS.Timeout | undefined = undefined;
  /** frames for another worker dropped: its ring stayed full past kBacklogMax (a stalled thread) */
  dropped = 0;

  constructor(private readonly channel: BroadcastChannel, private readonly me: number,
    private readonly recipients: (kind: ItemKind, db: number, a: Buffer) => number,
    private readonly deliver: (from: number, items: WireItems, asks: number[] | undefined) => void,
    private readonly counted: (from: number, counts: number[]) => void) {
    // a restarted worker: the others drop their rings to its predecessor
    channel.postMessage({ hello: me } satisfies RingControl);
  }

  close(): void {
    for (const r of this.in.values()) r.reader.close();
    if (this.backlogTimer !== undefined) clearInterval(this.backlogTimer);
  }

  /** A turn's items (flat, WireItems) and asks (flat [item index, id, holder bits]): one frame per reader. */
  send(items: WireItems, asks: number[]): void {
    const per = new Map<number, number[]>();
    for (let i = 0, at = 0; i + 3 < items.length; i += 4, at++) {
      let bits = this.recipients(items[i] as ItemKind, items[i + 1] as number, items[i + 2] as Buffer);
      while (bits !== 0) {
        const r = 31 - Math.clz32(bits);
        bits &= ~(1 << r);
        let list = per.get(r);
        if (list === undefined) per.set(r, list = []);
        list.push(at);
      }
    }
    for (const [r, which] of per) {
      // the asks naming this reader, renumbered to its frame's items
      let mine = kNoAsks;
      for (let k = 0; k + 2 < asks.length; k += 3) {
        if ((asks[k + 2]! & (1 << r)) === 0) continue;
        const pos = which.indexOf(asks[k]!);
        if (pos >= 0) (mine === kNoAsks ? (mine = []) : mine).push(pos, asks[k + 1]!, asks[k + 2]!);
      }
      this.toRing(r, encodeRingFrame(items, which, mine));
    }
  }

  /** The answers to a frame's asks (flat [ask id, receivers…]), back to the worker that asked. */
  sendCounts(to: number, counts: number[]): void {
    this.toRing(to, encodeRingFrame(kNoItems, kNoAsks, kNoAsks, counts));
  }

  private toRing(r: number, frame: Buffer): void {
    let out = this.out.get(r);
    if (out === undefined) {
      out = { ring: new RingWriter(newRing()), backlog: [], backlogBytes: 0, oobSeq: 0 };
      this.out.set(r, out);
      // before any frame: the reader starts on the ring once the channel brought it, in order
      this.channel.postMessage({ ring: out.ring.sab, from: this.me, to: r } satisfies RingControl);
    }
    let rec: Buffer | number = frame;
    if (frame.length > kRingFrameMax) {
      // too large for the ring: on the channel, and a marker in the ring where it belongs
      out.oobSeq = out.oobSeq >= 0x7fffffff ? 1 : out.oobSeq + 1;
      this.channel.postMessage({ oob: out.oobSeq, from: this.me, to: r, frame } satisfies RingControl);
      rec = out.oobSeq;
    }
    if (out.backlog.length === 0 && write(out, rec)) return;
    const bytes = typeof rec === 'number' ? 4 : rec.length;
    if (out.backlogBytes + bytes > kBacklogMax) {
      this.dropped++;
      return;
    }
    out.backlog.push(rec);
    out.backlogBytes += bytes;
    this.backlogTimer ??= setInterval(this.retryBacklogs, 1).unref();
  }

  /** A reader's ring was full: what waits goes in once it made room. */
  private readonly retryBacklogs = (): void => {
    let left = false;
    for (const out of this.out.values()) {
      while (out.backlog.length > 0 && write(out, out.backlog[0]!)) {
        const rec = out.backlog.shift()!;
        out.backlogBytes -= typeof rec === 'number' ? 4 : rec.length;
      }
      if (out.backlog.length > 0) left = true;
    }
    if (!left && this.backlogTimer !== undefined) {
      clearInterval(this.backlogTimer);
      this.backlogTimer = undefined;
    }
  };

  onControl(m: RingControl): void {
    if ('hello' in m) {
      if (m.hello !== this.me) this.out.delete(m.hello);
      return;
    }
    if (m.to !== this.me) return;
    if ('ring' in m) {
      this.in.get(m.from)?.reader.close();
      const from = m.from;
      const state: RingIn = {
        reader: new RingReader(m.ring, (bytes) => this.onFrame(from, bytes), (seq) => {
          const f = state.oob.get(seq);
          if (f === undefined) {
            state.waiting = seq;
            return false;
          }
          state.oob.delete(seq);
          this.onFrame(from, f);
          return true;
        }),
        oob: new Map(),
        waiting: 0,
      };
      this.in.set(from, state);
      return;
    }
    const state = this.in.get(m.from);
    if (state === undefined) return;
    const f = asBuffer(m.frame);
    if (state.waiting === m.oob) {
      state.waiting = 0;
      this.onFrame(m.from, f);
      state.reader.resume();
    } else {
      state.oob.set(m.oob, f);
    }
  }

  private onFrame(from: number, bytes: Buffer): void {
    const { items, asks, counts } = decodeRingFrame(bytes);
    if (counts !== undefined) this.counted(from, counts);
    if (items.length > 0) this.deliver(from, items, asks);
  }
}

function write(out: RingOut, rec: Buffer | number): boolean {
  return typeof rec === 'number' ? out.ring.tryWrite(undefined, rec) : out.ring.tryWrite(rec);
}
