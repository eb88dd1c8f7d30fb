/**
 * A worker's side of the read cache: (db, key) → the key's type, value and expiry as the last
 * read saw them, served only while the key's slot in the shared version table (version-table.ts)
 * and the epoch still hold what they held when the read was sent. The entries themselves live off
 * the JS heap in the process's arena (arena.ts), shared by every worker: one copy per process,
 * no object per entry for the GC. A different key with the same hash replaces the entry. Memory
 * is bounded (--cache-max-memory, per process): CLOCK over the arena's ring (a hit sets the
 * entry's reference bit; a referenced entry at tail is moved to head once instead of dropped).
 *
 * Admission is decided when the key misses, before its read is queued, so a miss that will not
 * be kept costs nothing more than the lookup: its op is not tagged, its read is the plain one
 * (no expiry column, no fill call, no copy). A key is tagged for a fill only on its second miss
 * within the doorkeeper's window (a bitmap in the version table's SharedArrayBuffer, shared by
 * the workers), and once the cache is full only if this worker's frequency sketch (two one-byte
 * counters, halved every 8M lookups) says it was asked for more often than the entry at tail.
 * A cold or uniform keyspace larger than the cache then fills almost nothing. docs/cache.md has
 * the numbers.
 *
 * Bypass: the lookup of a miss is not free (a hash, an index line, the doorkeeper: ~1.3 µs of
 * node CPU a pipelined GET under load, measured with absent keys), and where few lookups hit it
 * costs more than the hits save (1M keys over 64 MB: hit ratio 0.07, node 6.3 vs 3.8 µs a GET,
 * Postgres no less). So each worker counts its lookups' hits over a window; a window under a
 * quarter hits puts it in bypass, where only one op in kBypassStride goes through the cache
 * (lookup, admission, fill) and the others go straight to their lane untagged, as with the cache
 * off; the sampled ops keep measuring, and a sampled window at a quarter or more ends it. Only
 * fewer reads served from the cache: nothing about exactness changes (docs/cache.md "On by default").
 */
import { kAbsent, type ReadFill, type ReadOp } from '../ops';
import { kNoReply, type Reply } from '../reply';
import { KeyType } from '../key-store';
import { kReplyByReference } from '../../../protocol/constants';
import { kDoorWindow, type VersionTable } from './version-table';
import { CacheArena, Insert, type BulkSink } from './arena';

/**
 * frequency sketch counters (one byte each, saturating at 15): 256 KB a worker. A key's two
 * counters lie in one 64-byte line, so a lookup's count is one memory access, not two (the 1 MB
 * sketch with independent places was two cache misses a GET beside the version table's).
 */
const kSketch = 1 << 18;
/** counters are halved after this many recorded accesses, so old popularity fades */
const kSketchWindow = 32 * kSketch;
/** lookups (keys) a worker counts before it decides whether to bypass; in bypass, ops sampled */
const kWindow = 1 << 15;
const kBypassWindow = kWindow / 8;
/** in bypass, one op in this many goes through the cache: the rest cost one counter */
export const kBypassStride = 8;

export interface CacheStats {
  hits: number;
  misses: number;
  /** reads whose result was kept */
  fills: number;
  /** reads whose slot moved while they ran (a write raced them): not kept */
  raced: number;
  /** fills skipped because another worker held the arena's lock (a fill never waits) */
  busy: number;
  /** hits thrown away because another worker's fill reused the entry's bytes during the copy (the seqlock) */
  torn: number;
  /** entries found stale (their slot or the epoch moved, or their TTL passed) */
  invalidations: number;
  /** entries dropped for room */
  evictions: number;
  /** misses not kept: a first miss (doorkeeper), full and asked for no more often than the victim, or a value over the size limit */
  rejected: number;
  /** ops sent to their lane without a lookup: the worker is in bypass (its hit ratio under a quarter) */
  bypassed: number;
  /** the process's arena (reported by worker 0 only, so that the workers' sum is right) */
  entries: number;
  bytes: number;
}

export function emptyCacheStats(): CacheStats {
  return { hits: 0, misses: 0, fills: 0, raced: 0, busy: 0, torn: 0, invalidations: 0, evictions: 0, rejected: 0, bypassed: 0, entries: 0, bytes: 0 };
}

export class NearCache implements ReadFill {
  readonly stats = emptyCacheStats();
  private readonly sketch = new Uint8Array(kSketch);
  private counted = 0;
  /** first misses this worker marked in the doorkeeper since it last cleared it */
  private doorMarked = 0;
  /** the last lookup's answer (no object made per hit) */
  private hitType = 0;
  private hitValue: Buffer | null = null;
  /** the last lookup wrote its value into the op's sink (the client's writer) as the reply */
  private written = false;
  /** the frequency of the key being filled, for `admitOver` */
  private want = 0;
  /** the arena asks whether the newcomer may evict its first victim (made once: no closure per fill) */
  private readonly admitOver = (victim: number): boolean => this.want > this.frequency(victim);
  /** bypass (see the header): on, ops skipped since the last sampled one, and this window's counts */
  bypass = false;
  private skipped = 0;
  private windowLookups = 0;
  private windowHits = 0;

  /**
   * arena: the process's entries (arena.ts), shared with the other workers; maxValue: larger
   * values are not cached; totals: this worker reports the arena's entries and bytes (worker 0)
   */
  constructor(readonly table: VersionTable, readonly arena: CacheArena, public maxValue: number, readonly totals = true) {}

  /** the bound of the whole process's arena (CONFIG SET cache-max-memory; at most what it was made with) */
  get maxBytes(): number {
    return this.arena.limitBytes;
  }

  /** stats with the arena's figures (INFO, /metrics) */
  snapshot(): CacheStats {
    this.stats.evictions = this.arena.evictions;
    this.stats.entries = this.totals ? this.arena.entries : 0;
    this.stats.bytes = this.totals ? this.arena.bytes : 0;
    return { ...this.stats };
  }

  /**
   * A GET/MGET about to be queued: answers it from the cache when every key hits (true), else
   * tags it with its keys' versions so the read run can fill (false).
   */
  serve(op: ReadOp): boolean {
    const t = this.table;
    if (!t.enabled) return false;
    if (this.bypass) {
      if (++this.skipped < kBypassStride) {
        this.stats.bypassed++;
        return false;
      }
      this.skipped = 0;
    }
    const epoch = t.epoch;
    const key = op.key;
    if (key !== null) {
      const h = t.hash(op.db, key);
      // the slot's version and the key's sketch counters are read before the index walk: their
      // cache misses are then in flight with the index line's instead of after it and the entry's
      // header (four misses a hit, two of them dependent; see lookup)
      const version = t.version(t.slotOf(h));
      const s = this.sketch;
      const ca = s[counterA(h)];
      const cb = s[counterB(h)];
      if (++this.windowLookups >= (this.bypass ? kBypassWindow : kWindow)) this.decide();
      if (this.lookup(h, op.db, key, epoch, version, op.sink)) {
        this.windowHits++;
        this.countWith(h, ca, cb);
        this.stats.hits++;
        if (this.written) {
          // the reply is in the client's writer already
          this.written = false;
          op.settle(kNoReply);
        } else {
          op.settle(op.reply(this.hitType, this.hitValue));
          this.hitValue = null;
        }
        return true;
      }
      this.stats.misses++;
      if (!this.admits(h)) {
        this.stats.rejected++;
        return false;
      }
      op.cache = this;
      op.cacheEpoch = epoch;
      op.cacheVersion = version;
      return false;
    }
    const keys = op.keys!;
    this.windowLookups += keys.length;
    if (this.windowLookups >= (this.bypass ? kBypassWindow : kWindow)) this.decide();
    let out: Reply[] | null = new Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const h = t.hash(op.db, keys[i]);
      if (!this.lookup(h, op.db, keys[i], epoch, t.version(t.slotOf(h)), undefined)) { out = null; break; }
      out[i] = op.reply(this.hitType, this.hitValue);
    }
    this.hitValue = null;
    if (out !== null) {
      for (let i = 0; i < keys.length; i++) this.count(t.hash(op.db, keys[i]));
      this.windowHits += keys.length;
      this.stats.hits += keys.length;
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
   * The entry for (db, key), if it may answer: same slot version (`version`, read after the
   * command arrived, like `epoch`) and epoch as at its fill, not expired, and still intact after
   * its value was copied out (tail had not passed it). Sets hitType / hitValue, or, given a sink
   * and a string value under kReplyByReference, writes the value into it as the reply (one copy,
   * no Buffer) and sets `written`; a copy the check after it finds torn is taken back out.
   *
   * Read before the entry, the slot's version is still one the lookup may answer with: every
   * bump of a write acknowledged before the command arrived is in it, and an entry carrying it
   * was filled by a read the slot did not move around, so its value is the key's while the slot
   * holds it; an entry replaced or refilled since carries another version or fails intact().
   */
  private lookup(h: number, db: number, key: Buffer, epoch: number, version: number, sink: BulkSink | undefined): boolean {
    const a = this.arena;
    const pos = a.find(h, db, key);
    if (pos < 0) return false;
    const exp = a.expiry(pos);
    if (a.epoch(pos) !== epoch || a.version(pos) !== version || (exp !== 0 && exp <= Date.now())) {
      if (a.intact(pos)) this.stats.invalidations++;
      return false;
    }
    const type = a.type(pos);
    if (sink !== undefined && type === KeyType.String) {
      const mark = a.writeValue(pos, this.maxValue < kReplyByReference ? this.maxValue + 1 : kReplyByReference, sink);
      if (mark >= 0) {
        if (!a.intact(pos)) {
          sink.unwrite(mark);
          this.stats.torn++;
          return false;
        }
        a.touch();
        this.written = true;
        return true;
      }
    }
    const value = a.copyValue(pos, this.maxValue);
    if (!a.intact(pos)) {
      this.stats.torn++;
      return false;
    }
    a.touch();
    this.hitType = type;
    this.hitValue = value;
    return true;
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
    if (!this.arena.full()) return true;
    const victim = this.arena.victimHash();
    return victim === undefined || this.frequency(h) > this.frequency(victim);
  }

  /** A window's end: bypass while under a quarter of its lookups hit (a sampled window in bypass). */
  private decide(): void {
    this.bypass = this.windowHits * 4 < this.windowLookups;
    this.windowLookups = 0;
    this.windowHits = 0;
    this.skipped = 0;
  }

  /** The read run's row for a key of a tagged op (version: the slot's before the SELECT was sent). */
  fill(db: number, key: Buffer, type: number, value: Buffer | null, exp: number, version: number, epoch: number): void {
    const t = this.table;
    const h = t.hash(db, key);
    if (!t.enabled || t.epoch !== epoch || t.version(t.slotOf(h)) !== version) {
      this.stats.raced++;
      return;
    }
    if (value !== null && value.length > this.maxValue) {
      this.stats.rejected++;
      return;
    }
    this.want = this.frequency(h);
    const kept = type === kAbsent || value !== null ? value : null;
    switch (this.arena.insert(h, db, key, type, kept, exp, version, epoch, this.admitOver)) {
      case Insert.Kept: this.stats.fills++; break;
      case Insert.Busy: this.stats.busy++; break;
      default: this.stats.rejected++;
    }
  }

  /** A lookup of the key with hash h: its two counters (conservative update: only the smaller moves). */
  private count(h: number): void {
    const s = this.sketch;
    this.countWith(h, s[counterA(h)], s[counterB(h)]);
  }

  /** count(h) with its two counters read already (serve reads them early; nothing counts in between) */
  private countWith(h: number, ca: number, cb: number): void {
    const s = this.sketch;
    const a = counterA(h);
    const b = counterB(h);
    const m = ca < cb ? ca : cb;
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

  /** --cache-max-memory changed: the arena's bound (its next fill makes room) */
  resize(maxBytes: number): void {
    this.arena.setLimit(maxBytes);
  }

  clear(): void {
    this.arena.clear();
  }
}

/** the key's line of 64 counters (bits 8–19 of its hash) and its first counter there (bits 0–5) */
function counterA(h: number): number {
  return (((h >>> 8) << 6) & (kSketch - 1)) | (h & 63);
}

/** its second counter in the same line (bits 26–31) */
function counterB(h: number): number {
  return (((h >>> 8) << 6) & (kSketch - 1)) | (h >>> 26);
}
