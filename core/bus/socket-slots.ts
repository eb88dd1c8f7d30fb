/**
 * Socket slots: a worker's subscribers whose sockets the other workers of the process may write
 * themselves, in a SharedArrayBuffer every worker maps (docs/messaging.md, "Writing another
 * worker's subscriber"). A PUBLISH on worker P for a subscriber on worker W then costs P one
 * send(2) and wakes nobody; through the BroadcastChannel it cost a postMessage, W's wake-up and
 * W's send: at 5k msgs/s that wake was the cross-worker p99 (3.9x redis-server's) and 34 µs of
 * server CPU a message against 15 on one worker.
 *
 * Per slot, 8 Int32 words: [state, pending, fd, proto, id (Float64: the socket's inode), -, -, -].
 *
 *   state:  FREE ──alloc──▶ OWNER ◀──take── IDLE ──tryLock (P, pending = 0)──▶ LOCKED
 *                             │  idle(): nothing owed, nothing queued ──▶ IDLE ◀── unlock ─┘
 *                             ◀── the remainder written ── PARTIAL ◀── P's send was short
 *
 * - OWNER: W writes the socket (replies owed, bytes in its writer or its net.Socket): nobody
 *   else may. IDLE: W has nothing to write and nothing queued: a publisher may lock and send.
 * - pending: messages a publisher sent W through the channel for this slot (it could not lock)
 *   and W has not yet written. A publisher sends directly only while it is 0, so one publisher's
 *   messages never overtake its own earlier ones.
 * - PARTIAL: P's send(2) was short; the rest goes to W on the channel, and W writes it before
 *   anything else (its own writes wait in the meantime).
 * - fd and id: the socket, and its inode: P's send is refused (-ESTALE) when the descriptor is no
 *   longer that socket (W closed it: it takes the slot first; or W's thread died).
 */
import { loadNative } from '../native';

export const kFree = 0;
export const kOwner = 1;
export const kIdle = 2;
export const kLocked = 3;
export const kPartial = 4;

const kWords = 8;
/** slots per worker; subscribers beyond get none and are served through the channel */
export const kSlotsPerWorker = 4096;
/**
 * W waits at most this long for a publisher's send to end (a dead thread would hold it forever).
 * Taking the slot from a live publisher lets two threads write one socket, so this is far past
 * any deschedule seen here (stalls of ~100 ms at load 20-30 on 2 cores; 50 ms was too close).
 */
const kLockWaitMs = 2000;

export function newSlotBuffer(slots = kSlotsPerWorker): SharedArrayBuffer {
  return new SharedArrayBuffer(slots * kWords * 4);
}

export class SocketSlots {
  private readonly i32: Int32Array;
  private readonly f64: Float64Array;
  private readonly freeList: number[] = [];
  private next = 0;
  readonly size: number;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.i32 = new Int32Array(buffer);
    this.f64 = new Float64Array(buffer);
    this.size = this.i32.length / kWords;
  }

  // ------------------------------------------------------------- the owning worker's side

  /** A slot for the socket fd, owned (OWNER); -1 when none is left or fd is no socket. */
  alloc(fd: number, proto: 2 | 3): number {
    const id = loadNative().socketId(fd);
    if (id < 0) return -1;
    const i = this.freeList.pop() ?? (this.next < this.size ? this.next++ : -1);
    if (i < 0) return -1;
    const b = i * kWords;
    this.i32[b + 2] = fd;
    this.i32[b + 3] = proto;
    this.f64[(b >> 1) + 2] = id;
    Atomics.store(this.i32, b, kOwner);
    return i;
  }

  /** Takes the socket back to write it; true when a publisher's short send left a remainder to write first. */
  take(i: number): boolean {
    const b = i * kWords;
    const until = performance.now() + kLockWaitMs;
    for (;;) {
      const v = Atomics.compareExchange(this.i32, b, kIdle, kOwner);
      if (v === kIdle || v === kOwner) return false;
      if (v === kPartial) return true;
      if (v !== kLocked) return false; // FREE: not ours to guard
      // a publisher is in its send(2): microseconds, unless its thread was descheduled
      if (performance.now() > until) {
        Atomics.compareExchange(this.i32, b, kLocked, kOwner);
        return false;
      }
      Atomics.wait(this.i32, b, kLocked, 1);
    }
  }

  /** Nothing owed, nothing queued: publishers may write (proto: the client's, now). */
  idle(i: number, proto: 2 | 3): void {
    const b = i * kWords;
    this.i32[b + 3] = proto;
    Atomics.compareExchange(this.i32, b, kOwner, kIdle);
  }

  /** The remainder of a short send was written (queued in the socket): W owns the slot again. */
  remainderWritten(i: number): void {
    Atomics.compareExchange(this.i32, i * kWords, kPartial, kOwner);
  }

  /** The socket closes: no publisher may write it from now on. */
  free(i: number): void {
    this.take(i);
    Atomics.store(this.i32, i * kWords, kFree);
    this.freeList.push(i);
  }

  /** n messages counted by a publisher (addPending) were written or dropped here. */
  donePending(i: number, n: number): void {
    Atomics.sub(this.i32, i * kWords + 1, n);
  }

  isIdle(i: number): boolean {
    return Atomics.load(this.i32, i * kWords) === kIdle;
  }

  // ------------------------------------------------------------- a publishing worker's side

  /** The socket is the caller's to write while it returns true: call unlock() after. */
  tryLock(i: number): boolean {
    const b = i * kWords;
    if (Atomics.load(this.i32, b + 1) !== 0) return false;
    return Atomics.compareExchange(this.i32, b, kIdle, kLocked) === kIdle;
  }

  /** One send(2) to the locked slot's socket: bytes sent, or -errno (-ESTALE: not that socket any more). */
  send(i: number, bytes: Uint8Array): number {
    const b = i * kWords;
    return loadNative().sendFdIf(this.i32[b + 2]!, this.f64[(b >> 1) + 2]!, bytes);
  }

  proto(i: number): 2 | 3 {
    return this.i32[i * kWords + 3] === 3 ? 3 : 2;
  }

  /** to: IDLE (all sent), PARTIAL (a remainder follows on the channel), OWNER (nothing sent: the channel carries it) */
  unlock(i: number, to: number): void {
    const b = i * kWords;
    Atomics.store(this.i32, b, to);
    Atomics.notify(this.i32, b);
  }

  /** A message for slot i goes through the channel: no direct send until the owner wrote it. */
  addPending(i: number): void {
    Atomics.add(this.i32, i * kWords + 1, 1);
  }
}
