/**
 * One worker's read cache: (db, key) → the key's type, value and expiry as the last read saw
 * them, served only while the key's slot in the shared version table (version-table.ts) and the
 * epoch still hold what they held when the read was sent. Entries are keyed by the 32-bit hash
 * the slot comes from (no string made per lookup); a different key with the same hash replaces
 * the entry. Memory is bounded (--cache-max-memory, split between the workers): CLOCK eviction
 * over a ring (a hit sets `ref`; the hand gives a referenced entry a second chance).
 *
 * Admission is decided when the key misses, before its read is queued, so a miss that will not
 * be kept costs nothing more than the lookup: its op is not tagged, its read is the plain one
 * (no expiry column, no fill call, no copy). A key is tagged for a fill only on its second miss
 * within the doorkeeper's window (a bitmap in the version table's SharedArrayBuffer, shared by
 * the workers), and once the cache is full only if the frequency sketch (two one-byte counters,
 * halved every 8M lookups) says it was asked for more often than the entry the hand would evict.
 * A cold or uniform keyspace larger than the cache then fills almost nothing. docs/cache.md has
 * the numbers.
 */
import { kAbsent, type ReadFill, type ReadOp } from '../ops';
import type { Reply } from '../reply';
import { kDoorWindow, type VersionTable } from './version-table';

/** what an entry costs besides its key and value bytes (object, Map slot, Buffer headers), measured roughly */
const kEntryOverhead = 160;
/**
 * frequency sketch counters (one byte each, saturating at 15): 256 KB a worker. A key's two
 * counters lie in one 64-byte line, so a lookup's count is one memory access, not two (the 1 MB
 * sketch with independent places was two cache misses a GET beside the version table's).
 */
const kSketch = 1 << 18;
/** counters are halved after this many recorded accesses, so old popularity fades */
const kSketchWindow = 32 * kSketch;

/** bits of the presence filter (a power of two): 64k entries leave 6% of absent keys looking present */
const kPresentLog = 20;
const kPresentBits = 1 << kPresentLog;

/** the Map's key: 30 bits of the hash, a small integer (a uint32 over 2^30 was a heap number each lookup) */
const kMapKey = 0x3fffffff;

class Entry {
  ref = false;
  /** its place in the clock ring */
  at = 0;
  constructor(readonly h: number, readonly db: number, readonly key: Buffer, readonly type: number, readonly value: Buffer | null,
    readonly exp: number, readonly slot: number, readonly version: number, readonly epoch: number, readonly bytes: number) {}
}

export interface CacheStats {
  hits: number;
  misses: number;
  /** reads whose result was kept */
  fills: number;
  /** reads whose slot moved while they ran (a write raced them): not kept */
  raced: number;
  /** entries found stale (their slot or the epoch moved) */
  invalidations: number;
  /** entries dropped for room */
  evictions: number;
  /** misses not kept: a first miss (doorkeeper), full and asked for no more often than the victim, or a value over the size limit */
  rejected: number;
  entries: number;
  bytes: number;
}

export function emptyCacheStats(): CacheStats {
  return { hits: 0, misses: 0, fills: 0, raced: 0, invalidations: 0, evictions: 0, rejected: 0, entries: 0, bytes: 0 };
}

export class NearCache implements ReadFill {
  readonly stats = emptyCacheStats();
  private readonly map = new Map<number, Entry>();
  /** the clock: entries in fill order, holes where one was dropped (reused through `free`) */
  private readonly ring: (Entry | null)[] = [];
  private readonly free: number[] = [];
  private hand = 0;
  private readonly sketch = new Uint8Array(kSketch);
  private counted = 0;
  /** first misses this worker marked in the doorkeeper since it last cleared it */
  private doorMarked = 0;
  /**
   * Which hashes may have an entry: a bit each (2^20 bits, 128 KB, in L2), set by a fill and
   * rebuilt from the map once as many entries went as it holds. A miss whose bit is clear costs
   * the hash and one read of this, instead of a Map lookup that touched the table, the entry and
   * its key's bytes (three to four cache misses over a heap of 64k entries: in `perf record` of
   * heavy GETs, serve and its key compare were 11% of the worker's CPU).
   */
  private readonly present = new Int32Array(kPresentBits >>> 5);
  /** entries dropped since the filter was last rebuilt */
  private presentStale = 0;

  /** maxBytes: this worker's share; maxValue: larger values are not cached */
  constructor(readonly table: VersionTable, public maxBytes: number, public maxValue: number) {}

  /**
   * A GET/MGET about to be queued: answers it from the cache when every key hits (true), else
   * tags it with its keys' versions so the read run can fill (false).
   */
  serve(op: ReadOp): boolean {
    const t = this.table;
    if (!t.enabled) return false;
    const epoch = t.epoch;
    const key = op.key;
    if (key !== null) {
      const h = t.hash(op.db, key);
      // most misses stop at the filter: no Map lookup, no entry or key bytes touched
      const e = this.mayHold(h) ? this.live(h, op.db, key, epoch) : undefined;
      if (e !== undefined) {
        this.count(h);
        this.stats.hits++;
        op.settle(op.reply(e.type, e.value));
        return true;
      }
      this.stats.misses++;
      if (!this.admits(h)) {
        this.stats.rejected++;
        return false;
      }
      op.cache = this;
      op.cacheEpoch = epoch;
      op.cacheVersion = t.version(t.slotOf(h));
      return false;
    }
    const keys = op.keys!;
    const found: Entry[] = new Array(keys.length);
    let all = true;
    for (let i = 0; i < keys.length && all; i++) {
      const h = t.hash(op.db, keys[i]);
      const e = this.mayHold(h) ? this.live(h, op.db, keys[i], epoch) : undefined;
      if (e === undefined) all = false;
      else found[i] = e;
    }
    if (all) {
      for (let i = 0; i < keys.length; i++) this.count(found[i].h);
      this.stats.hits += keys.length;
      const out: Reply[] = new Array(keys.length);
      for (let i = 0; i < keys.length; i++) out[i] = op.reply(found[i].type, found[i].value);
      op.settle(out);
      return true;
    }
    this.stats.misses += keys.length;
    // one tag for the op: its keys are filled if any of them is admitted (fill decides room)
    let admit = false;
    for (let i = 0; i < keys.length; i++) if (this.admits(t.hash(op.db, keys[i]))) admit = true;
    if (!admit) {
      this.stats.rejected += keys.length;
      return false;
    }
    const versions = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) versions[i] = t.version(t.slotOf(t.hash(op.db, keys[i])));
    op.cache = this;
    op.cacheEpoch = epoch;
    op.cacheVersions = versions;
    return false;
  }

  /**
   * Whether a miss of the key with hash h is worth a fill: its second miss in the doorkeeper's
   * window, and, once the cache is full, asked for more often than the entry at the hand.
   */
  private admits(h: number): boolean {
    if (!this.table.seenBefore(h)) {
      if (++this.doorMarked >= kDoorWindow) {
        this.doorMarked = 0;
        this.table.clearDoor();
      }
      return false;
    }
    // TinyLFU's order: the doorkeeper takes a key's first access, the sketch counts the rest
    this.count(h);
    const n = this.map.size;
    if (n === 0 || this.stats.bytes + this.stats.bytes / n <= this.maxBytes) return true;
    const victim = this.peekVictim();
    return victim === undefined || this.frequency(h) > this.frequency(victim.h);
  }

  /** the first entry at or after the hand (no ref cleared, nothing moved) */
  private peekVictim(): Entry | undefined {
    const ring = this.ring;
    for (let i = 0, at = this.hand; i < 8; i++, at++) {
      if (at >= ring.length) at = 0;
      const e = ring[at];
      if (e !== null && e !== undefined) return e;
    }
    return undefined;
  }

  private mayHold(h: number): boolean {
    const b = presentBit(h);
    return (this.present[b >>> 5] & (1 << (b & 31))) !== 0;
  }

  private markPresent(h: number): void {
    const b = presentBit(h);
    this.present[b >>> 5] |= 1 << (b & 31);
  }

  /** as many entries went as the filter holds: its bits are rebuilt from the map (64k entries: ~1 ms, once per 64k drops) */
  private dropped(): void {
    if (++this.presentStale < 1024 || this.presentStale < this.map.size) return;
    this.presentStale = 0;
    this.present.fill(0);
    for (const e of this.map.values()) this.markPresent(e.h);
  }

  private live(h: number, db: number, key: Buffer, epoch: number): Entry | undefined {
    const e = this.map.get(h & kMapKey);
    if (e === undefined || e.db !== db || !sameBytes(e.key, key)) return undefined;
    if (e.epoch !== epoch || this.table.version(e.slot) !== e.version || (e.exp !== 0 && e.exp <= Date.now())) {
      this.stats.invalidations++;
      this.drop(e);
      return undefined;
    }
    e.ref = true;
    return e;
  }

  /** The read run's row for a key of a tagged op (version: the slot's before the SELECT was sent). */
  fill(db: number, key: Buffer, type: number, value: Buffer | null, exp: number, version: number, epoch: number): void {
    const t = this.table;
    const h = t.hash(db, key);
    const slot = t.slotOf(h);
    if (!t.enabled || t.epoch !== epoch || t.version(slot) !== version) {
      this.stats.raced++;
      return;
    }
    if (value !== null && value.length > this.maxValue) {
      this.stats.rejected++;
      return;
    }
    const kept = type === kAbsent || value !== null ? value : null;
    const bytes = kEntryOverhead + key.length + (kept?.length ?? 0);
    const old = this.map.get(h & kMapKey);
    if (old !== undefined) this.drop(old);
    if (this.stats.bytes + bytes > this.maxBytes && !this.makeRoom(h, bytes)) {
      this.stats.rejected++;
      return;
    }
    const e = new Entry(h, db, copy(key), type, kept === null ? null : copy(kept), exp, slot, version, epoch, bytes);
    e.at = this.free.length > 0 ? this.free.pop()! : this.ring.length;
    this.ring[e.at] = e;
    this.map.set(h & kMapKey, e);
    this.markPresent(h);
    this.stats.fills++;
    this.stats.entries = this.map.size;
    this.stats.bytes += bytes;
  }

  /** A lookup of the key with hash h: its two counters (conservative update: only the smaller moves). */
  private count(h: number): void {
    const s = this.sketch;
    const a = counterA(h);
    const b = counterB(h);
    const m = s[a] < s[b] ? s[a] : s[b];
    if (m < 15) {
      if (s[a] === m) s[a] = m + 1;
      if (s[b] === m) s[b] = m + 1;
    }
    if (++this.counted >= kSketchWindow) {
      this.counted = 0;
      for (let i = 0; i < kSketch; i++) s[i] >>>= 1;
    }
  }

  private frequency(h: number): number {
    const s = this.sketch;
    const a = s[counterA(h)];
    const b = s[counterB(h)];
    return a < b ? a : b;
  }

  /**
   * Full: the hand's next victim (a referenced entry is passed over once, its ref cleared) must
   * have been asked for less often than the newcomer, else the newcomer is not kept (false).
   * Once admitted, further victims go until there is room.
   */
  private makeRoom(h: number, room: number): boolean {
    const want = h < 0 ? -1 : this.frequency(h);
    let first = true;
    let turns = this.ring.length * 2;
    while (this.stats.bytes + room > this.maxBytes && this.map.size > 0 && turns-- > 0) {
      if (this.hand >= this.ring.length) this.hand = 0;
      const e = this.ring[this.hand];
      if (e === null || e === undefined) { this.hand++; continue; }
      if (e.ref) { e.ref = false; this.hand++; continue; }
      if (first && want >= 0 && want <= this.frequency(e.h)) return false;
      first = false;
      this.hand++;
      this.drop(e);
      this.stats.evictions++;
    }
    return this.stats.bytes + room <= this.maxBytes;
  }

  private drop(e: Entry): void {
    this.map.delete(e.h & kMapKey);
    this.dropped();
    this.ring[e.at] = null;
    this.free.push(e.at);
    this.stats.bytes -= e.bytes;
    this.stats.entries = this.map.size;
  }

  /** --cache-max-memory changed: shrink now */
  resize(maxBytes: number): void {
    this.maxBytes = maxBytes;
    if (this.stats.bytes > maxBytes) this.makeRoom(-1, 0);
  }

  clear(): void {
    this.map.clear();
    this.present.fill(0);
    this.presentStale = 0;
    this.ring.length = 0;
    this.free.length = 0;
    this.hand = 0;
    this.stats.bytes = 0;
    this.stats.entries = 0;
  }
}

/** a hash's bit in the presence filter: the top bits after a multiply (the Map and the slot use its low bits) */
function presentBit(h: number): number {
  return Math.imul(h, 0x9e3779b1) >>> (32 - kPresentLog);
}

/** the key's line of 64 counters (bits 8–19 of its hash) and its first counter there (bits 0–5) */
function counterA(h: number): number {
  return (((h >>> 8) << 6) & (kSketch - 1)) | (h & 63);
}

/** its second counter in the same line (bits 26–31) */
function counterB(h: number): number {
  return (((h >>> 8) << 6) & (kSketch - 1)) | (h >>> 26);
}

/** keys are short: a byte loop beats Buffer#equals's call into C++ (a tenth of the lookup's time in a profile) */
function sameBytes(a: Buffer, b: Buffer): boolean {
  const n = a.length;
  if (n !== b.length) return false;
  if (n > 64) return a.equals(b);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** a copy the cache owns: argv and result rows are views into buffers that are reused */
function copy(b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(b.length);
  b.copy(out);
  return out;
}
