/**
 * --cache shared, the primary's lease (docs/cache.md "--cache shared"): this instance serves from
 * its cache only while it can vouch that every other instance's write reaches its version table
 * within a bound. Every 100 ms it sends itself a heartbeat through the bus's Postgres link;
 * notifications arrive in commit order, so when a heartbeat sent at t0 comes back, every
 * invalidation committed before t0 has been received. The cache is on while all of these hold:
 *
 *   - the last heartbeat that came back was sent within leaseMs (250 ms);
 *   - worker 0 receives the invalidations (it says so in the version table every 100 ms);
 *   - the lock connection is up, and no instance that does not tell its writes (--cache off, or
 *     exclusive) serves the schema (cache-lock.ts: probed every tick; the last probe that found
 *     none was sent within leaseMs, and a silent newcomer waits 400 ms before it serves);
 *   - no notification of another instance was lost, and none re-registered (it reconnected and
 *     may have dropped invalidations while down), since the last tick: either turns the cache
 *     off for that tick, and on again with the epoch moved (nothing filled before is served).
 *
 * Turning it on or off moves the epoch (VersionTable.setEnabled). So a read here shows a value
 * older than a write acknowledged on another instance by at most the notification's delay while
 * on, and the cache is off within leaseMs of anything that could break that bound.
 */
import type { PgLink } from '../bus/pg-link';
import type { VersionTable } from '../engine/cache/version-table';
import type { CacheLock } from './cache-lock';

export interface CacheLeaseStats {
  on: boolean;
  /** times the lease turned the cache off, and why the last time */
  offs: number;
  lastOff: string;
  /** ms between the last heartbeat's send and its return */
  beatMs: number;
}

export class CacheLease {
  readonly stats: CacheLeaseStats = { on: false, offs: 0, lastOff: '', beatMs: 0 };
  private timer: NodeJS.Timeout | undefined;
  /** send time of the newest heartbeat that came back */
  private confirmed = 0;
  private lost = -1;
  private registrations = -1;
  private probing = false;
  private free = false;
  /** when the last probe that found no silent instance was sent */
  private freeAt = 0;

  constructor(private readonly opts: { link: PgLink; lock: CacheLock; table: VersionTable; log: (line: string) => void;
    beatMs?: number; leaseMs?: number }) {}

  start(): void {
    this.opts.link.onBeat = (sentAt) => {
      if (sentAt > this.confirmed) {
        this.confirmed = sentAt;
        this.stats.beatMs = Date.now() - sentAt;
      }
      this.check();
    };
    this.timer = setInterval(() => this.tick(), this.opts.beatMs ?? 100);
    this.timer.unref();
    this.tick();
  }

  stop(): void {
    clearInterval(this.timer);
    this.opts.link.onBeat = undefined;
    this.set(false, 'stopping');
  }

  private tick(): void {
    this.opts.link.beat(Date.now());
    if (!this.probing) {
      this.probing = true;
      const sent = Date.now();
      this.opts.lock.uncachedAbsent().then((free) => { this.free = free; if (free) this.freeAt = sent; }, () => { this.free = false; })
        .finally(() => { this.probing = false; this.check(); });
    }
    this.check();
  }

  private check(): void {
    const { link, lock, table } = this.opts;
    const s = link.stats;
    if (s.lost !== this.lost || s.registrations !== this.registrations) {
      const first = this.lost < 0;
      this.lost = s.lost;
      this.registrations = s.registrations;
      if (!first) return this.set(false, 'another instance reconnected or a notification was lost');
    }
    const why = !s.connected ? 'the bus link is down'
      : !lock.held ? 'the lock connection is down'
      : !this.free ? 'an instance that does not tell its writes (--cache off or exclusive) serves the schema'
      // a probe stuck on a slow lock connection must not keep a stale answer: a silent newcomer waits 400 ms (cache-lock.ts)
      : Date.now() - this.freeAt > (this.opts.leaseMs ?? 250) ? `no probe for silent instances answered within ${this.opts.leaseMs ?? 250} ms`
      : table.sharedAliveAgo() > 500 ? 'worker 0 does not receive invalidations'
      : Date.now() - this.confirmed > (this.opts.leaseMs ?? 250) ? `no heartbeat back within ${this.opts.leaseMs ?? 250} ms`
      : '';
    this.set(why === '', why);
  }

  private set(on: boolean, why: string): void {
    if (on === this.stats.on && on === this.opts.table.enabled) return;
    this.opts.table.setEnabled(on);
    if (on === this.stats.on) return;
    this.stats.on = on;
    if (!on) {
      this.stats.offs++;
      this.stats.lastOff = why;
    }
    this.opts.log(on ? 'read cache (shared) on: invalidations from every instance arrive' : `read cache (shared) off: ${why}`);
  }
}
