/**
 * Interest keys: what a subscriber or a blocked client waits for, as one string usable as a Map
 * key in every thread and stored as bytes in bus_interest (latin1 keeps every byte as one char).
 *
 *   c<channel>   SUBSCRIBE        p<pattern>   PSUBSCRIBE
 *   s<channel>   SSUBSCRIBE       k<db>:<key>  a client blocked on key (BLPOP, BZPOPMIN…)
 */
import { globMatch } from '../engine/glob';

export type InterestKind = 'c' | 'p' | 's';

/**
 * A shard channel of the server's own: when the link to the other instances comes back after a
 * loss, the hub sends an empty message on it to this process's workers that hold it (what other
 * instances published meanwhile is lost). CLIENT TRACKING holds it (tracker.ts).
 */
export const kBusReconnected = Buffer.from('\0postresp:bus-reconnected');

export function interestKey(kind: InterestKind, name: Buffer): string {
  return kind + name.toString('latin1');
}

export function blockedKey(db: number, key: Buffer): string {
  return `k${db}:${key.toString('latin1')}`;
}

/** Patterns (PSUBSCRIBE) with how many subscriptions hold each (and which workers, as bits), matched against a channel. */
export class PatternSet {
  readonly patterns = new Map<string, { pattern: Buffer; n: number; holders: number }>();

  set(key: string, n: number, holders = 0): void {
    if (n > 0) {
      const e = this.patterns.get(key);
      if (e) { e.n = n; e.holders = holders; }
      else this.patterns.set(key, { pattern: Buffer.from(key.slice(1), 'latin1'), n, holders });
    } else {
      this.patterns.delete(key);
    }
  }

  /** The holder bits of the patterns that match channel. */
  holdersOf(channel: Buffer): number {
    if (this.patterns.size === 0) return 0;
    let bits = 0;
    for (const e of this.patterns.values()) if (globMatch(e.pattern, channel)) bits |= e.holders;
    return bits;
  }

  /** Sum of the counts of the patterns that match channel (0 without patterns: no work). */
  matches(channel: Buffer): number {
    if (this.patterns.size === 0) return 0;
    let n = 0;
    for (const e of this.patterns.values()) if (globMatch(e.pattern, channel)) n += e.n;
    return n;
  }

  get size(): number {
    return this.patterns.size;
  }
}
