/**
 * One worker's bus frames to one other worker of the process: a single-producer single-consumer
 * ring in a SharedArrayBuffer (docs/messaging.md, "Inside one process"). A BroadcastChannel
 * postMessage cost ~20 µs of the sender's time and as much of the receiver's on this 2-vCPU VM
 * whatever the frame held (serialisation is not the cost: the port's queue, its lock, the wake
 * and the event dispatch are); writing a frame here is a copy and two atomic stores, and the
 * reader is woken (Atomics.notify) only when it sleeps: one wake-up for a burst of frames.
 *
 *   header (Int32): [0] write position  [1] read position  [2] reader sleeps (1) or drains (0)
 *   data: records of u32 length + frame bytes, wrapping around the end; positions count bytes
 *         mod 2^32 (capacity a power of two)
 *
 * A record whose length has kOutOfBand set carries no bytes: its frame went on the BroadcastChannel
 * (too large for the ring), and the reader waits for it there before reading further.
 */
const kWrite = 0;
const kRead = 1;
const kSleep = 2;
const kHeaderBytes = 16;
export const kOutOfBand = 0x80000000;

// Node 20 has Atomics.waitAsync (V8 11.3); TypeScript's ES2023 lib does not declare it
const waitAsync = (Atomics as unknown as {
  waitAsync(a: Int32Array, i: number, v: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

export const kRingBytes = 1 << 20;
/** frames over this go on the BroadcastChannel, in order (kOutOfBand) */
export const kRingFrameMax = kRingBytes / 4;

/** frames read one per microtask before the reader yields a macrotask (setImmediate) */
const kFramesPerTurn = 64;

export function newRing(bytes = kRingBytes): SharedArrayBuffer {
  return new SharedArrayBuffer(kHeaderBytes + bytes);
}

class Ring {
  protected readonly hdr: Int32Array;
  protected readonly data: Buffer;
  protected readonly mask: number;
  protected readonly cap: number;

  constructor(readonly sab: SharedArrayBuffer) {
    this.hdr = new Int32Array(sab, 0, kHeaderBytes / 4);
    this.data = Buffer.from(sab, kHeaderBytes);
    this.cap = this.data.length;
    this.mask = this.cap - 1;
  }
}

export class RingWriter extends Ring {
  private readonly len = Buffer.alloc(4);

  /** Copies one record in (a frame, or an out-of-band marker: `bytes` undefined); false when it does not fit now. */
  tryWrite(bytes: Buffer | undefined, marker = 0): boolean {
    const n = bytes === undefined ? 0 : bytes.length;
    const w = this.hdr[kWrite]!;
    const used = (w - Atomics.load(this.hdr, kRead)) >>> 0;
    if (used + 4 + n > this.cap) return false;
    this.len.writeUInt32LE(bytes === undefined ? (kOutOfBand | marker) >>> 0 : n, 0);
    this.put(w, this.len);
    if (bytes !== undefined) this.put((w + 4) | 0, bytes);
    Atomics.store(this.hdr, kWrite, (w + 4 + n) | 0);
    // the reader set kSleep before its last look at kWrite: one of us sees the other's store
    if (Atomics.load(this.hdr, kSleep) === 1) {
      Atomics.store(this.hdr, kSleep, 0);
      Atomics.notify(this.hdr, kSleep);
    }
    return true;
  }

  private put(pos: number, src: Buffer): void {
    const at = pos & this.mask;
    const first = Math.min(src.length, this.cap - at);
    src.copy(this.data, at, 0, first);
    if (first < src.length) src.copy(this.data, 0, first);
  }
}

/**
 * Reads records as they come: frame(bytes) for each frame (bytes copied out, the ring's space
 * freed at once), outOfBand(marker) for a marker: false stops reading until resume() (its frame
 * has not arrived on the channel yet).
 */
export class RingReader extends Ring {
  private closed = false;
  private stopped = false;
  /** frames read since the last macrotask */
  private inTurn = 0;
  private readonly nextTurn = (): void => {
    this.inTurn = 0;
    this.drain();
  };

  constructor(sab: SharedArrayBuffer, private readonly frame: (bytes: Buffer) => void,
    private readonly outOfBand: (marker: number) => boolean) {
    super(sab);
    queueMicrotask(this.drain);
  }

  close(): void {
    this.closed = true;
    // a reader asleep in waitAsync stays pending: nothing holds the event loop for it
  }

  resume(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.drain();
  }

  private readonly drain = (): void => {
    if (this.closed) return;
    const hdr = this.hdr;
    for (;;) {
      let r = hdr[kRead]!;
      while (r !== Atomics.load(hdr, kWrite)) {
        const len = this.u32(r);
        if ((len & kOutOfBand) !== 0) {
          Atomics.store(hdr, kRead, (r + 4) | 0);
          r = (r + 4) | 0;
          if (!this.outOfBand((len & ~kOutOfBand) >>> 0)) {
            this.stopped = true;
            return;
          }
        } else {
          const bytes = this.take((r + 4) | 0, len);
          r = (r + 4 + len) | 0;
          Atomics.store(hdr, kRead, r);
          this.frame(bytes);
        }
        if (this.closed) return;
        // the next frame after the microtasks this one queued (the clients' socket writes), as
        // when each frame was its own channel event: a subscriber's output limit counts the
        // bytes not yet written, and a burst read in one go must not pile up unwritten
        if (r !== Atomics.load(hdr, kWrite)) {
          // a writer that keeps up a stream must not starve this thread's sockets and timers
          if (++this.inTurn < kFramesPerTurn) queueMicrotask(this.drain);
          else setImmediate(this.nextTurn);
          return;
        }
      }
      Atomics.store(hdr, kSleep, 1);
      if (Atomics.load(hdr, kWrite) !== r) {
        Atomics.store(hdr, kSleep, 0);
        continue;
      }
      const res = waitAsync(hdr, kSleep, 1);
      if (!res.async) continue;
      this.inTurn = 0;
      void res.value.then(this.drain);
      return;
    }
  };

  private u32(pos: number): number {
    const at = pos & this.mask;
    if (at + 4 <= this.cap) return this.data.readUInt32LE(at);
    return this.take(pos, 4).readUInt32LE(0);
  }

  private take(pos: number, n: number): Buffer {
    const out = Buffer.allocUnsafeSlow(n);
    const at = pos & this.mask;
    const first = Math.min(n, this.cap - at);
    this.data.copy(out, 0, at, at + first);
    if (first < n) this.data.copy(out, first, 0, n - first);
    return out;
  }
}
