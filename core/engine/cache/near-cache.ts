/**
 * One worker's read cache: (db, key) → the key's type, value and expiry as the last read saw
 * them, served only while the key's slot in the shared version table (version-table.ts) and the
 * epoch still hold what they held when the read was sent. Entries are keyed by the 32-bit hash
 * the slot comes from (no string made per lookup); a different key with the same hash replaces
 * the entry. Memory is bounded (--cache-max-memory, split between the workers): CLOCK eviction
 * (a hit sets `ref`; the sweep gives a referenced entry a second chance) and, once full, a
 * doorkeeper admission (a key is cached on its second miss within a window), so a skewed
 * workload's cold tail does not push the hot keys out. docs/cache.md has the numbers.
 */
import { kAbsent, type ReadFill, type ReadOp } from '../ops';
import type { Reply } from '../reply';
import type { VersionTable } from './version-table';

/** what an entry costs besides its key and value bytes (object, Map slot, Buffer headers), measured roughly */
const kEntryOverhead = 160;
/** doorkeeper bits; cleared when a quarter are set */
const kDoorBits = 1 << 20;

class Entry {
  ref = false;
  constructor(readonly db: number, readonly key: Buffer, readonly type: number, readonly value: Buffer | null,
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
  /** misses not kept: full and first seen (admission), or a value over the size limit */
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
  private readonly door = new Uint32Array(kDoorBits / 32);
  private doorSet = 0;

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
      const e = this.live(h, op.db, key, epoch);
      if (e !== undefined) {
        this.stats.hits++;
        op.settle(op.reply(e.type, e.value));
        return true;
      }
      this.stats.misses++;
      op.cache = this;
      op.cacheEpoch = epoch;
      op.cacheVersion = t.version(t.slotOf(h));
      return false;
    }
    const keys = op.keys!;
    const found: Entry[] = new Array(keys.length);
    let all = true;
    for (let i = 0; i < keys.length && all; i++) {
      const e = this.live(t.hash(op.db, keys[i]), op.db, keys[i], epoch);
      if (e === undefined) all = false;
      else found[i] = e;
    }
    if (all) {
      this.stats.hits += keys.length;
      const out: Reply[] = new Array(keys.length);
      for (let i = 0; i < keys.length; i++) out[i] = op.reply(found[i].type, found[i].value);
      op.settle(out);
      return true;
    }
    this.stats.misses += keys.length;
    const versions = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) versions[i] = t.version(t.slotOf(t.hash(op.db, keys[i])));
    op.cache = this;
    op.cacheEpoch = epoch;
    op.cacheVersions = versions;
    return false;
  }

  private live(h: number, db: number, key: Buffer, epoch: number): Entry | undefined {
    const e = this.map.get(h);
    if (e === undefined || e.db !== db || !e.key.equals(key)) return undefined;
    if (e.epoch !== epoch || this.table.version(e.slot) !== e.version || (e.exp !== 0 && e.exp <= Date.now())) {
      this.stats.invalidations++;
      this.drop(h, e);
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
    const old = this.map.get(h);
    if (old !== undefined) this.drop(h, old);
    if (this.stats.bytes + bytes > this.maxBytes) {
      if (!this.admit(h)) {
        this.stats.rejected++;
        return;
      }
      this.evict(bytes);
    }
    const e = new Entry(db, copy(key), type, kept === null ? null : copy(kept), exp, slot, version, epoch, bytes);
    this.map.set(h, e);
    this.stats.fills++;
    this.stats.entries = this.map.size;
    this.stats.bytes += bytes;
  }

  /** Seen before in this window? (a key's first miss in a full cache only marks it) */
  private admit(h: number): boolean {
    const bit = h & (kDoorBits - 1);
    const word = bit >>> 5;
    const mask = 1 << (bit & 31);
    if ((this.door[word] & mask) !== 0) return true;
    this.door[word] |= mask;
    if (++this.doorSet >= kDoorBits / 4) {
      this.door.fill(0);
      this.doorSet = 0;
    }
    return false;
  }

  /** CLOCK over the Map's insertion order: a referenced entry moves to the back, unreferenced */
  private evict(room: number): void {
    let turns = this.map.size * 2;
    for (const [h, e] of this.map) {
      if (this.stats.bytes + room <= this.maxBytes || turns-- <= 0) break;
      if (e.ref) {
        e.ref = false;
        this.map.delete(h);
        this.map.set(h, e);
        continue;
      }
      this.drop(h, e);
      this.stats.evictions++;
    }
  }

  private drop(h: number, e: Entry): void {
    this.map.delete(h);
    this.stats.bytes -= e.bytes;
    this.stats.entries = this.map.size;
  }

  /** --cache-max-memory changed: shrink now */
  resize(maxBytes: number): void {
    this.maxBytes = maxBytes;
    if (this.stats.bytes > maxBytes) this.evict(0);
  }

  clear(): void {
    this.map.clear();
    this.stats.bytes = 0;
    this.stats.entries = 0;
  }
}

/** a copy the cache owns: argv and result rows are views into buffers that are reused */
function copy(b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(b.length);
  b.copy(out);
  return out;
}
