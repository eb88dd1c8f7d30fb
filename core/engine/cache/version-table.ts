/**
 * The read cache's version table: one Int32 per slot in a SharedArrayBuffer that every worker
 * thread of the process maps, indexed by a hash of (db, key). A write bumps its keys' slots
 * before its statement is sent and again once its outcome is known (committed, failed or
 * unknown), before its reply; a whole-db write (FLUSHDB, FLUSHALL, SWAPDB, MOVE, COPY … DB, a
 * script) bumps the epoch instead. A read fills the cache only if its slot and the epoch did not
 * move between before its SELECT was sent and after it returned, and an entry is served only
 * while both still hold the values it was filled with (docs/cache.md: why that is exact).
 *
 *   [0] enabled (1 / 0: the primary turns every worker's cache off at once)
 *   [1] epoch
 *   [2] --cache shared: when worker 0 last said it receives other instances' invalidations
 *       (1 + ms mod 2^30; 0 never), which the primary's lease reads
 *   [3 …] slots, a power of two
 *   then the doorkeeper: 2^21 bits (256 KB), one per key hash, set by a key's first miss
 *
 * Collisions only cost extra misses: two keys in one slot invalidate each other.
 */

const kEnabled = 0;
const kEpoch = 1;
const kSharedAlive = 2;
const kHeader = 3;
const kAliveMod = 1 << 30;
/** doorkeeper bits (a power of two): a key's bit is the top 21 bits of a second hash of its 32-bit hash */
const kDoorBits = 21;
const kDoorWords = (1 << kDoorBits) >>> 5;
/**
 * First misses a worker marks before it clears the doorkeeper: 2^18 of 2^21 bits, so a key seen
 * once is taken for seen twice at most 1 - e^(-1/8) = 12% of the time (per worker; 2 workers 22%).
 */
export const kDoorWindow = 1 << 18;

/**
 * 2^18 slots: 1 MB, which stays in a core's L2 here (4 MB) beside everything else, so a write's
 * bump is not a cache miss: an Atomics.add on a random slot took 57 ns in a 4 MB table, 23 ns in
 * 1 MB, 15 ns in 256 KB (best of 5, 2^20 random slots, this machine). 100k hot keys share a slot
 * with 0.4 others on average: a write to one costs the others' entries a miss.
 */
export const kDefaultSlots = 1 << 18;

export function newVersionBuffer(slots = kDefaultSlots): SharedArrayBuffer {
  const sab = new SharedArrayBuffer((kHeader + slots + kDoorWords) * 4);
  new Int32Array(sab)[kEnabled] = 1;
  return sab;
}

export class VersionTable {
  private readonly v: Int32Array;
  private readonly mask: number;
  /** where the doorkeeper's words start */
  private readonly door: number;

  constructor(sab: SharedArrayBuffer) {
    this.v = new Int32Array(sab);
    this.door = this.v.length - kDoorWords;
    this.mask = this.door - kHeader - 1;
  }

  /**
   * The doorkeeper (admission on the second miss): true if a key with this hash missed since the
   * last clear, in any worker of the process; else marks it and says false. A bit per hash, no
   * allocation; a lost race between two workers only costs one more miss.
   */
  seenBefore(hash: number): boolean {
    const b = Math.imul(hash, 0x85ebca6b) >>> (32 - kDoorBits);
    const w = this.door + (b >>> 5);
    const m = 1 << (b & 31);
    if ((Atomics.load(this.v, w) & m) !== 0) return true;
    Atomics.or(this.v, w, m);
    return false;
  }

  /** a new doorkeeper window: every key's next miss is a first one again (256 KB of stores, every 2^18 first misses) */
  clearDoor(): void {
    this.v.fill(0, this.door);
  }

  /** FNV-1a over the key's bytes and the db: ~1 ns a byte, no allocation */
  hash(db: number, key: Buffer): number {
    let h = (0x811c9dc5 ^ db) >>> 0;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key[i], 0x01000193);
    return h >>> 0;
  }

  slotOf(hash: number): number {
    return kHeader + (hash & this.mask);
  }

  /**
   * A plain read, like `epoch` and `enabled` (the writers still Atomics.add / store). Atomics.load
   * is a builtin call V8 does not inline here: these three were 5.7% of a worker's on-CPU samples
   * in warm pipelined hits (perf, docs/BENCHMARKS.md "A cache hit at a PING's cost"). Why a plain
   * read is enough: the guarantee needs a lookup to see every bump made before the read began,
   * i.e. before the client sent the GET. The bump (a locked add on x86-64, a barrier on arm64) is
   * globally visible before the writer's reply is sent, and the reader's load comes after its
   * socket read (a syscall) in program order; x86-64 keeps loads in order with loads, and V8
   * keeps no typed-array element in a register across calls, so the load reads memory after the
   * read began. The same holds for the fill's reads around its SELECT (its send and its
   * receive are syscalls). The seqlock's tail (arena.ts intact) stays an Atomics.load: it must
   * come after the copy's plain loads, which is an ordering between loads of one lookup.
   */
  version(slot: number): number {
    return this.v[slot];
  }

  bump(db: number, key: Buffer): void {
    Atomics.add(this.v, this.slotOf(this.hash(db, key)), 1);
  }

  /** the slot of hash (another instance's write: --cache shared sends hashes, not keys) */
  bumpHash(hash: number): void {
    Atomics.add(this.v, this.slotOf(hash), 1);
  }

  /** a plain read (see version()) */
  get epoch(): number {
    return this.v[kEpoch];
  }

  bumpEpoch(): void {
    Atomics.add(this.v, kEpoch, 1);
  }

  /** --cache shared: worker 0 receives other instances' invalidations (it says so every 100 ms) */
  markSharedAlive(): void {
    Atomics.store(this.v, kSharedAlive, 1 + (Date.now() % kAliveMod));
  }

  /** ms since worker 0 last said so (Infinity: never) */
  sharedAliveAgo(): number {
    const t = Atomics.load(this.v, kSharedAlive);
    if (t === 0) return Infinity;
    return (1 + (Date.now() % kAliveMod) - t + kAliveMod) % kAliveMod;
  }

  /** a plain read (see version()): the primary's Atomics.store of 0 precedes its lock swap, the newcomer's start, every later request */
  get enabled(): boolean {
    return this.v[kEnabled] === 1;
  }

  /** Off: every worker stops serving at its next lookup, and the epoch moves so nothing filled before is served later. */
  setEnabled(on: boolean): void {
    Atomics.add(this.v, kEpoch, 1);
    Atomics.store(this.v, kEnabled, on ? 1 : 0);
  }
}
