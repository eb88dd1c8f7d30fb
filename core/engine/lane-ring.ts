/**
 * The shared ring one worker hands its plain SETs to the lane-owning worker through
 * (--shared-lanes, docs/BENCHMARKS.md "Batching across worker threads"). One SharedArrayBuffer
 * per forwarding worker, made by the primary so it outlives either thread:
 *
 *   ctl   int32 × 8   [kPub] ops published, [kPubBytes] bytes published   (forwarder writes)
 *                     [kTaken] ops taken, [kTakenBytes] bytes taken,       (owner writes)
 *                     [kAnswered] ops answered, [kOwnerBatch] ops in its lane's last batch
 *   status int32 × kSlots   per op (seq & kSlotMask): 0 waiting, kOkStatus, kErrStatus
 *   errors kErrBytes × kSlots   the error text of a failed op (u8 length, latin1)
 *   data  kDataBytes          records, 8-byte aligned, never wrapping the end:
 *                             u32 length | u16 db | u16 0 | f64 expiry (NaN: none) | u32 key length | u32 value length | key | value
 *                             (length kSkip: the rest up to the end is empty, go to 0)
 *
 * Counters only grow (int32 wrap-around is fine: sizes are powers of two and positions are taken
 * with a mask). The forwarder stores its data, then kPub with Atomics (sequentially consistent:
 * the owner that sees the count sees the bytes); the owner stores each status, then bumps
 * kAnswered. A replacement thread of either side carries on from the counters.
 */
export const kPub = 0;
export const kPubBytes = 1;
export const kTaken = 2;
export const kTakenBytes = 3;
export const kAnswered = 4;
/** ops in the owner lane's last batch: a forwarder sends new work only while it is under kForwardBelow */
export const kOwnerBatch = 5;
/**
 * Past ~20 rows a statement Postgres saves little more per row (unlogged 10.4 µs at 20, 7.5 at 50)
 * while every forwarded op costs the hand-off; at -c 50 -P 16 the owner's batches held 230 ops and
 * forwarding cost 1.8 µs of node a SET (3.6 → 5.4) for 0.8 µs of Postgres.
 */
export const kForwardBelow = 64;
const kCtlInts = 8;

/** ops in flight per ring at most: 1024 is 50 pipelines of 20, more than a lane batch takes (256) */
export const kSlots = 1024;
export const kSlotMask = kSlots - 1;
export const kErrBytes = 128;
/** 1 MiB of records: 1 KiB SETs, 1000 in flight */
export const kDataBytes = 1 << 20;
export const kDataMask = kDataBytes - 1;
/** records larger than this stay on the forwarder's own lane */
export const kMaxRecord = kDataBytes >> 3;
export const kHeader = 24;
export const kSkip = 0xffffffff;

export const kOkStatus = 1;
export const kErrStatus = 2;

const kStatusAt = kCtlInts * 4;
const kErrorsAt = kStatusAt + kSlots * 4;
const kDataAt = kErrorsAt + kSlots * kErrBytes;

/** A ring's views: one object per thread over the same memory. */
export class LaneRing {
  readonly ctl: Int32Array;
  readonly status: Int32Array;
  readonly errors: Buffer;
  readonly data: Buffer;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.ctl = new Int32Array(buffer, 0, kCtlInts);
    this.status = new Int32Array(buffer, kStatusAt, kSlots);
    this.errors = Buffer.from(buffer, kErrorsAt, kSlots * kErrBytes);
    this.data = Buffer.from(buffer, kDataAt, kDataBytes);
  }

  /** record bytes an op with this key and value takes, aligned */
  static recordBytes(keyLength: number, valueLength: number): number {
    return (kHeader + keyLength + valueLength + 7) & ~7;
  }

  /** the error text of the op in `slot` (the owner wrote it before the status) */
  errorText(slot: number): string {
    const at = slot * kErrBytes;
    return this.errors.toString('latin1', at + 1, at + 1 + this.errors[at]);
  }

  setError(slot: number, text: string): void {
    const at = slot * kErrBytes;
    const n = this.errors.write(text, at + 1, kErrBytes - 1, 'latin1');
    this.errors[at] = n;
  }
}

export function newLaneRingBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(kDataAt + kDataBytes);
}

/** Atomics.waitAsync (Node 20 has it; the TypeScript lib this project targets does not declare it) */
export const waitAsync = (Atomics as unknown as {
  waitAsync(a: Int32Array, index: number, value: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;
