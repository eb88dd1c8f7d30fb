/**
 * Redis's TrackingTable for one worker: key name (every db: Redis's table ignores the db) → ids
 * of the connections that read it while tracking. An invalidation takes the key out; a key read
 * again goes back in. Bounded like Redis's tracking-table-max-keys: past the limit the oldest
 * keys are invalidated and dropped (Redis picks random ones; insertion order costs nothing here).
 */
export class TrackingTable {
  /** latin1 key → client ids; a Map keeps insertion order, the eviction order */
  private readonly keys = new Map<string, Set<number>>();
  /** ids summed over keys (INFO tracking_total_items) */
  items = 0;

  /** limit: keys at most, 0 = no limit */
  constructor(public limit: number) {}

  get size(): number {
    return this.keys.size;
  }

  remember(key: Buffer, id: number): void {
    const k = key.toString('latin1');
    let ids = this.keys.get(k);
    if (ids === undefined) this.keys.set(k, ids = new Set());
    if (!ids.has(id)) {
      ids.add(id);
      this.items++;
    }
  }

  /** whether client id is remembered for key */
  has(key: Buffer, id: number): boolean {
    return this.keys.get(key.toString('latin1'))?.has(id) === true;
  }

  /** The ids that read key, now forgotten; undefined when nobody did. */
  take(key: Buffer): Set<number> | undefined {
    if (this.keys.size === 0) return undefined;
    const k = key.toString('latin1');
    const ids = this.keys.get(k);
    if (ids === undefined) return undefined;
    this.keys.delete(k);
    this.items -= ids.size;
    return ids;
  }

  /** Keys over the limit, oldest first, taken out: the caller invalidates them. */
  *overflow(): Generator<[Buffer, Set<number>]> {
    if (this.limit === 0) return;
    for (const [k, ids] of this.keys) {
      if (this.keys.size <= this.limit) return;
      this.keys.delete(k);
      this.items -= ids.size;
      yield [Buffer.from(k, 'latin1'), ids];
    }
  }

  clear(): void {
    this.keys.clear();
    this.items = 0;
  }
}
