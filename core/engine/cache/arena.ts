/**
 * The read cache's entries, off the JS heap and shared by every worker of the process: one
 * SharedArrayBuffer the primary creates (newCacheArena) and hands each worker in its ServeTask.
 * No per-entry object for the GC to mark, one copy of a key per process, one cold fill.
 *
 *   globals   16 Int32: [0] the writers' lock, [1] head, [2] tail (positions, below), [3] entries,
 *             [4] the bound on the live span in 8-byte units (--cache-max-memory, mutable),
 *             [5] sets made, [6] the ring's units, [7] the sets in use - 1 (a mask, grows)
 *   index     set-associative: 8 ways of (hash, position) per set, one 64-byte line a lookup;
 *             sized by the bound, but only the first sets are used while there are few entries
 *             (see grow);
 *             position -1 is an empty way; bit 30 of a position word is CLOCK's reference bit,
 *             set by a hit (Atomics.or: it cannot undo a writer's store of the word)
 *   data      a ring of entries, each 8-byte aligned and contiguous (a pad entry fills the end):
 *             Int32 [0] size in units, [1] db (-1: pad), [2] hash, [3] type, [4] key length,
 *             [5] value length (-1: null), [6] slot version, [7] epoch, Float64 [8-9] expiry
 *             (ms, 0 = none), then the key's bytes and the value's
 *
 * Positions are logical, in 8-byte units, counted modulo kPosMod (a multiple of the ring's size,
 * ≤ 2^30): the byte offset is 8 × (pos % units). A fill appends at head; room is made at tail,
 * which only moves forward. Writers (a fill, its evictions) take the lock with one
 * compareExchange and never wait: a worker that finds it held skips the fill.
 *
 * Readers take no lock. A hit copies the value out of the arena (a young-generation Buffer: the
 * reply may wait in the client's queue while another worker's fill reuses these bytes) and then
 * checks that tail had not passed the entry's position: the writer moves tail (Atomics.store)
 * before it writes over the bytes behind it, so a reader that still sees the old tail after its
 * copy read bytes nobody had started to overwrite. This is the seqlock, one for the whole ring
 * rather than one per entry: an entry's own header can be overwritten by the next entry's value,
 * so a counter kept in it could not be trusted after reuse. On x86-64 loads are not reordered
 * with loads, so the copy's plain reads are done before the Atomics.load of tail. On arm64 that
 * load (ldar) does not hold back earlier plain loads: there intact() first does an Atomics.store
 * to a private word (stlr: every earlier access completes before it, and it comes before the
 * ldar), which x86-64 does not need (an xchg, ~10 ns a hit). Only x86-64 was measured and tested.
 * A position is trusted only within kPosMod - units of tail (8 GB of fills with a 64 MB ring):
 * a reader would have to stall that long inside one copy to be fooled.
 *
 * Correctness does not rest on the index: an entry is served only if its key's bytes match, its
 * slot's version and the epoch are those it was filled with and tail did not pass it. A lost or
 * stale way only costs a miss.
 */

const kLock = 0;
const kHead = 1;
const kTail = 2;
const kEntries = 3;
const kLimit = 4;
const kSetMask = 7;
const kGlobals = 16;
/**
 * sets in use at first (16 KB of index); doubled when more than half the ways in use hold
 * entries, or when a set overflows at over an eighth. A 64 MB bound makes 64k sets (4 MB): 10k hot keys spread over all of them were 10k
 * lines on 1k pages, a line and a TLB miss most hits; over 4k sets, 64 pages (docs/cache.md).
 */
const kInitialSets = 256;

const kWays = 8;
/**
 * CLOCK's reference bit, in the way's position word (positions are < kPosMod ≤ 2^30). It was a
 * byte per way in an array of its own: a second line a hit touched, 19% of the on-CPU samples of
 * serve() in warm hits (perf annotate; docs/BENCHMARKS.md "A cache hit at a PING's cost").
 */
const kRef = 1 << 30;
const kPosMask = kRef - 1;
/** plain loads may be satisfied after a later Atomics.load except on x86-64 (see the top) */
const kFenceBeforeCheck = process.arch !== 'x64' && process.arch !== 'ia32';
const kEmpty = -1;
/** header bytes before the key */
const kHeaderBytes = 40;
/** the index gets one way per this many bytes of the bound (64 MB: 512k ways, 4 MB of index) */
const kBytesPerWay = 128;
/** entries larger than this fraction of the ring are refused (a fill would empty much of the cache) */
const kMaxShare = 32;
/**
 * The live span's bound leaves this fraction of the ring free: a referenced entry at tail is
 * copied to head before its old bytes are released, so a free stretch of its size (and of a pad
 * to the ring's end, also under units / kMaxShare) must exist beside a full span.
 */
const kSlack = 16;
/** second chances (entries moved from tail to head) a fill may pay for before it evicts referenced entries too */
const kMovesPerFill = 4;

export const enum Insert { Kept, Busy, TooLarge, Rejected }

/** Where writeValue copies a hit (protocol/writer.ts ReplyWriter): a bulk reply, and taking it back. */
export interface BulkSink {
  /** writes $n, CRLF, src[from, from + n), CRLF; returns the mark unwrite takes */
  bulkFrom(src: Buffer, from: number, n: number): number;
  unwrite(mark: number): void;
}

/** the arena for a bound of maxBytes (index and data both count against it) */
export function newCacheArena(maxBytes: number): SharedArrayBuffer {
  const bound = Math.max(64 * 1024, maxBytes);
  const sets = pow2Floor(Math.max(64, bound / kBytesPerWay / kWays));
  const indexBytes = sets * kWays * 8;
  const units = Math.max(1024, Math.floor((bound - indexBytes - kGlobals * 4) / 8));
  const sab = new SharedArrayBuffer(kGlobals * 4 + indexBytes + units * 8);
  const g = new Int32Array(sab, 0, kGlobals);
  g[kLimit] = units - Math.ceil(units / kSlack);
  g[5] = sets;
  g[6] = units;
  g[kSetMask] = Math.min(sets, kInitialSets) - 1;
  new Int32Array(sab, kGlobals * 4, sets * kWays * 2).fill(kEmpty);
  return sab;
}

export class CacheArena {
  private readonly g: Int32Array;
  private readonly index: Int32Array;
  private readonly i32: Int32Array;
  private readonly f64: Float64Array;
  /** the ring as a Buffer (copy, copyWithin) */
  private readonly u8: Buffer;
  /** the ring's size in 8-byte units */
  readonly units: number;
  private readonly posMod: number;
  /** a word no other thread touches: intact()'s release store on weakly ordered CPUs */
  private readonly fence = new Int32Array(new SharedArrayBuffer(4));
  /** the index way of the last find() that answered (its ref bit is set on a hit) */
  way = -1;
  /** evictions this worker made (entries that were in the index and were dropped for room) */
  evictions = 0;

  /**
   * owner: this worker's index + 1, the value its writers store in the lock word. A worker thread
   * that dies mid-fill (DEBUG PANIC, a crash) leaves the word held and every fill of the process
   * Busy; its replacement (the same index) releases it here before it serves.
   */
  constructor(sab: SharedArrayBuffer, private readonly owner: number) {
    this.g = new Int32Array(sab, 0, kGlobals);
    Atomics.compareExchange(this.g, kLock, owner, 0);
    const sets = this.g[5];
    this.units = this.g[6];
    const ways = sets * kWays;
    this.index = new Int32Array(sab, kGlobals * 4, ways * 2);
    const data = kGlobals * 4 + ways * 8;
    this.i32 = new Int32Array(sab, data, this.units * 2);
    this.f64 = new Float64Array(sab, data, this.units);
    this.u8 = Buffer.from(sab, data, this.units * 8);
    this.posMod = this.units * Math.floor((1 << 30) / this.units);
  }

  /** the ring's size; the bound is at most 15/16 of it (kSlack), a larger --cache-max-memory needs a restart */
  get capacityBytes(): number {
    return this.units * 8;
  }

  get entries(): number {
    return Atomics.load(this.g, kEntries);
  }

  /** bytes of the ring in use: live entries, and dead ones tail has not passed yet */
  get bytes(): number {
    return this.span(Atomics.load(this.g, kHead), Atomics.load(this.g, kTail)) * 8;
  }

  /** index sets in use (grow doubles them as entries come; at most those made for the bound) */
  get setsInUse(): number {
    return Atomics.load(this.g, kSetMask) + 1;
  }

  get limitBytes(): number {
    return Atomics.load(this.g, kLimit) * 8;
  }

  /** --cache-max-memory changed: the live span's bound (up to the ring's size), entries dropped at once to fit */
  setLimit(bytes: number): void {
    const g = this.g;
    Atomics.store(g, kLimit, Math.max(0, Math.min(this.units - Math.ceil(this.units / kSlack), Math.floor(bytes / 8))));
    // a rare command: wait for a fill in progress on another worker (microseconds)
    while (Atomics.compareExchange(g, kLock, 0, this.owner) !== 0);
    try {
      this.makeRoom(0, null);
    } finally {
      Atomics.store(g, kLock, 0);
    }
  }

  /** no room for another entry of the average size */
  full(): boolean {
    const n = this.entries;
    const used = this.bytes;
    return n > 0 && used + used / n > this.limitBytes;
  }

  /** the hash of the first live entry at tail (the next to go), read without the lock: a hint for admission */
  victimHash(): number | undefined {
    let pos = Atomics.load(this.g, kTail);
    const head = Atomics.load(this.g, kHead);
    for (let i = 0; i < 8 && pos !== head; i++) {
      const at = (pos % this.units) * 2;
      const size = this.i32[at];
      if (size <= 0 || size > this.units) return undefined;
      if (this.i32[at + 1] >= 0 && this.wayOf(this.i32[at + 2], pos) >= 0) return this.i32[at + 2];
      pos = (pos + size) % this.posMod;
    }
    return undefined;
  }

  /**
   * The position of the entry for (db, key) with hash h, or -1. Its fields are read with the
   * accessors below, and the value copied out with copyValue; then intact(pos) must hold.
   */
  find(hash: number, db: number, key: Buffer): number {
    const h = hash | 0;
    const idx = this.index;
    const base = (h & this.g[kSetMask]) * (kWays * 2);
    const n = key.length;
    for (let w = 0; w < kWays * 2; w += 2) {
      if (idx[base + w] !== h) continue;
      const word = idx[base + w + 1];
      if (word < 0) continue;
      const pos = word & kPosMask;
      const at = (pos % this.units) * 2;
      const i32 = this.i32;
      if (i32[at + 2] !== h || i32[at + 1] !== db || i32[at + 4] !== n) continue;
      if (!this.sameKey(at * 4 + kHeaderBytes, key)) continue;
      this.way = (base + w) >>> 1;
      return pos;
    }
    return -1;
  }

  /** a hit: CLOCK's reference bit for the way find() answered from */
  touch(): void {
    // stored only when clear: a hot entry's bit is set already, and a store to the line would
    // pull it away from the other worker's core each hit (both workers hit the same entries)
    // a writer may have stored another position (or -1) in the word since find(): the bit then
    // lands on that entry (a second chance it did not earn) or on -1 (all bits set already)
    const i = this.way * 2 + 1;
    if (this.way >= 0 && (this.index[i] & kRef) === 0) Atomics.or(this.index, i, kRef);
  }

  type(pos: number): number {
    return this.i32[(pos % this.units) * 2 + 3];
  }

  version(pos: number): number {
    return this.i32[(pos % this.units) * 2 + 6];
  }

  epoch(pos: number): number {
    return this.i32[(pos % this.units) * 2 + 7];
  }

  expiry(pos: number): number {
    return this.f64[(pos % this.units) + 4];
  }

  /** the value, copied out of the ring (null when the entry has none); bounded by maxValue in case the bytes were reused */
  copyValue(pos: number, maxValue: number): Buffer | null {
    const at = (pos % this.units) * 2;
    const n = this.i32[at + 5];
    if (n < 0 || n > maxValue) return null;
    const from = at * 4 + kHeaderBytes + this.i32[at + 4];
    if (from + n > this.u8.length) return null;
    const out = valueCopy(n);
    // short values: a byte loop beats Buffer#copy's call into C++
    if (n <= 64) for (let i = 0; i < n; i++) out[i] = this.u8[from + i];
    else this.u8.copy(out, 0, from, from + n);
    return out;
  }

  /**
   * The value as a bulk reply straight into sink (one copy, no Buffer made); then intact(pos)
   * must hold, or sink.unwrite(mark). Returns the mark, or -1 when the entry has no value or it is
   * not for this path (maxValue or more, or out of the ring: its bytes were reused).
   */
  writeValue(pos: number, maxValue: number, sink: BulkSink): number {
    const at = (pos % this.units) * 2;
    const n = this.i32[at + 5];
    if (n < 0 || n >= maxValue) return -1;
    const from = at * 4 + kHeaderBytes + this.i32[at + 4];
    if (from + n > this.u8.length) return -1;
    return sink.bulkFrom(this.u8, from, n);
  }

  /** after the reads of an entry: true if tail had not passed it, so no writer had begun to reuse its bytes */
  intact(pos: number): boolean {
    if (kFenceBeforeCheck) Atomics.store(this.fence, 0, 0);
    return this.span(pos, Atomics.load(this.g, kTail)) < this.units;
  }

  /**
   * Keeps an entry (under the writers' lock; Busy if another worker holds it). Room is made at
   * tail: a referenced entry is moved to head once (CLOCK's second chance), and the first entry
   * that would go is asked of `admit` (its hash: false keeps the cache as it is).
   */
  insert(hash: number, db: number, key: Buffer, type: number, value: Buffer | null, exp: number,
    version: number, epoch: number, admit: ((victim: number) => boolean) | null): Insert {
    const size = units(kHeaderBytes + key.length + (value === null ? 0 : value.length));
    if (size * kMaxShare > this.units) return Insert.TooLarge;
    const h = hash | 0;
    const g = this.g;
    if (Atomics.compareExchange(g, kLock, 0, this.owner) !== 0) return Insert.Busy;
    try {
      if (!this.makeRoom(size, admit)) return Insert.Rejected;
      const pos = this.append(size);
      const at = (pos % this.units) * 2;
      const i32 = this.i32;
      i32[at] = size;
      i32[at + 1] = db;
      i32[at + 2] = h;
      i32[at + 3] = type;
      i32[at + 4] = key.length;
      i32[at + 5] = value === null ? -1 : value.length;
      i32[at + 6] = version;
      i32[at + 7] = epoch;
      this.f64[(pos % this.units) + 4] = exp;
      const k = at * 4 + kHeaderBytes;
      key.copy(this.u8, k);
      if (value !== null) value.copy(this.u8, k + key.length);
      this.publish(h, pos);
      return Insert.Kept;
    } finally {
      Atomics.store(g, kLock, 0);
    }
  }

  /** every entry dropped (tests; --cache-max-memory to 0) */
  clear(): void {
    const g = this.g;
    while (Atomics.compareExchange(g, kLock, 0, this.owner) !== 0);
    this.index.fill(kEmpty);
    Atomics.store(g, kSetMask, Math.min(g[5], kInitialSets) - 1);
    Atomics.store(g, kEntries, 0);
    Atomics.store(g, kTail, Atomics.load(g, kHead));
    Atomics.store(g, kLock, 0);
  }

  /** the entry at pos, now fully written, goes in its set: over a way of the same hash, an empty one, or the one nearest tail */
  private publish(h: number, pos: number): void {
    const idx = this.index;
    const base = (h & this.g[kSetMask]) * (kWays * 2);
    const tail = this.g[kTail];
    let pick = -1;
    let nearest = Infinity;
    for (let w = 0; w < kWays * 2; w += 2) {
      const p = idx[base + w + 1];
      if (p >= 0 && idx[base + w] === h) { pick = w; break; }
      if (p < 0) { if (nearest > -1) { nearest = -1; pick = w; } continue; }
      const d = this.span(p & kPosMask, tail);
      if (d < nearest) { nearest = d; pick = w; }
    }
    const replacing = idx[base + pick + 1];
    // a full set: the way nearest tail is given up (its entry can no longer be found)
    const overflow = replacing >= 0 && idx[base + pick] !== h;
    if (replacing < 0) Atomics.add(this.g, kEntries, 1);
    else if (overflow) this.evictions++;
    // the hash first, then the position: a reader pairing a stale hash with the new position
    // checks the entry's own hash and key anyway
    Atomics.store(idx, base + pick, h);
    // the reference bit clear
    Atomics.store(idx, base + pick + 1, pos);
    // more than half the ways used, or a set overflowed past an eighth (8 ways a set overflow
    // by chance at a load of a half: 2% of the sets)
    const sets = this.g[kSetMask] + 1;
    const used = this.g[kEntries];
    if ((used * 2 > sets * kWays || (overflow && used * 8 > sets * kWays)) && sets < this.g[5]) this.grow(sets);
  }

  /**
   * Twice the sets in use (under the writers' lock): each way whose hash has the new mask bit
   * moves to its set's twin, copied there before it is cleared here, and then the mask grows. A
   * lookup meanwhile (either mask) may not find a moved entry: a miss, as for any lost way.
   * Every way is visited once a doubling: O(entries) over all of them.
   */
  private grow(sets: number): void {
    const idx = this.index;
    const bit = sets;
    for (let from = 0, to = sets * kWays * 2; from < sets * kWays * 2; from += 2, to += 2) {
      const word = idx[from + 1];
      if (word < 0 || (idx[from] & bit) === 0) continue;
      Atomics.store(idx, to, idx[from]);
      Atomics.store(idx, to + 1, word);
      Atomics.store(idx, from + 1, kEmpty);
    }
    Atomics.store(this.g, kSetMask, 2 * sets - 1);
  }

  /** room for size units at head (and a pad if they would cross the ring's end) within the bound */
  private makeRoom(size: number, admit: ((victim: number) => boolean) | null): boolean {
    const g = this.g;
    const limit = g[kLimit];
    let asked = admit === null;
    // each live entry gets at most one second chance: two passes over what the ring can hold
    let turns = 2 * this.units;
    // a second chance copies the entry (1 KB: a memmove over cold lines): a few a fill at most,
    // or a fill with half the entries referenced moved many (makeRoom was 3% of a worker's CPU)
    let moves = kMovesPerFill;
    for (;;) {
      const head = g[kHead];
      const tail = g[kTail];
      const used = this.span(head, tail);
      if (used + size + this.padBefore(head, size) <= limit) return true;
      if (used === 0 || turns-- <= 0) return false;
      const at = (tail % this.units) * 2;
      const vsize = this.i32[at];
      const db = this.i32[at + 1];
      const way = db < 0 ? -1 : this.wayOf(this.i32[at + 2], tail);
      if (way >= 0) {
        const vh = this.i32[at + 2];
        // second chance: copied to head, then its old bytes released (the span stays the same);
        // the slack above the bound leaves the free stretch this needs
        if ((this.index[way * 2 + 1] & kRef) !== 0 && moves > 0 && used + vsize + this.padBefore(head, vsize) <= this.units) {
          moves--;
          // moveToHead stores the new position with the bit clear
          this.moveToHead(way, tail, vsize);
          continue;
        }
        if (!asked) {
          asked = true;
          if (!admit!(vh)) return false;
        }
        Atomics.store(this.index, way * 2 + 1, kEmpty);
        Atomics.sub(g, kEntries, 1);
        this.evictions++;
      }
      // before any byte behind it is written: readers check tail after their copy
      Atomics.store(g, kTail, (tail + vsize) % this.posMod);
    }
  }

  /** the index way holding position pos for hash h, or -1 (the entry is dead: replaced or dropped) */
  private wayOf(h: number, pos: number): number {
    const idx = this.index;
    const base = (h & this.g[kSetMask]) * (kWays * 2);
    for (let w = 0; w < kWays * 2; w += 2) {
      const word = idx[base + w + 1];
      if (word >= 0 && (word & kPosMask) === pos) return (base + w) >>> 1;
    }
    return -1;
  }

  private moveToHead(way: number, from: number, size: number): void {
    const to = this.append(size);
    const src = (from % this.units) * 8;
    this.u8.copyWithin((to % this.units) * 8, src, src + size * 8);
    Atomics.store(this.index, way * 2 + 1, to);
    Atomics.store(this.g, kTail, (from + size) % this.posMod);
  }

  /** size units at head (after a pad entry to the ring's end if they would cross it); the caller made room */
  private append(size: number): number {
    const g = this.g;
    let head = g[kHead];
    const pad = this.padBefore(head, size);
    if (pad > 0) {
      const at = (head % this.units) * 2;
      this.i32[at] = pad;
      this.i32[at + 1] = -1;
      head = (head + pad) % this.posMod;
    }
    Atomics.store(g, kHead, (head + size) % this.posMod);
    return head;
  }

  private padBefore(head: number, size: number): number {
    const phys = head % this.units;
    return phys + size > this.units ? this.units - phys : 0;
  }

  /** units from b forward to a (positions modulo posMod) */
  private span(a: number, b: number): number {
    const d = a - b;
    return d < 0 ? d + this.posMod : d;
  }

  private sameKey(from: number, key: Buffer): boolean {
    const n = key.length;
    const u8 = this.u8;
    if (from + n > u8.length) return false;
    if (n > 64) return u8.compare(key, 0, n, from, from + n) === 0;
    for (let i = 0; i < n; i++) if (u8[from + i] !== key[i]) return false;
    return true;
  }
}

/**
 * Where hits' values are copied: views into one 256 KB slab at a time (as workers/read-slab.ts
 * does for socket reads), a slab replaced when full and alive while a view is. Buffer.allocUnsafe
 * took a new 8 KB pool every eight 1 KiB hits: in a profile of warm heavy GETs its
 * createUnsafeBuffer was 140 ms beside the copy's 242 ms.
 */
const kValueSlab = 256 * 1024;
/** larger values get a buffer of their own (a slab would hold few) */
const kSlabbedMax = 16 * 1024;
let valueSlab = Buffer.allocUnsafeSlow(kValueSlab);
let valueSlabAt = 0;

function valueCopy(n: number): Buffer {
  if (n > kSlabbedMax) return Buffer.allocUnsafe(n);
  if (valueSlab.length - valueSlabAt < n) {
    valueSlab = Buffer.allocUnsafeSlow(kValueSlab);
    valueSlabAt = 0;
  }
  const at = valueSlabAt;
  // 8-aligned, like Buffer's pool
  valueSlabAt = (at + n + 7) & ~7;
  return valueSlab.subarray(at, at + n);
}

function units(bytes: number): number {
  return (bytes + 7) >>> 3;
}

function pow2Floor(n: number): number {
  let p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}
