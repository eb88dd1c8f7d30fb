/**
 * Who may keep an exact read cache (docs/cache.md): an instance caches only while it is the only
 * one serving the schema. Every instance, whatever its --cache, holds an advisory lock on the
 * schema for as long as it runs, on a connection of its own:
 *
 *   --cache exclusive   pg_try_advisory_lock (exclusive). Got it: the cache is on. Not got:
 *                       as --cache off.
 *   --cache off         pg_try_advisory_lock_shared. Not got (an owner caches): NOTIFY the owner
 *                       and wait (≤ 10 s) in pg_advisory_lock_shared until it let go.
 *   --cache shared      the same shared lock as off; the cache is on while cache-lease.ts says so.
 *   the owner, told     turns every worker's cache off (the shared version table's flag), then
 *                       swaps its lock for a shared one: caches stay off while the two run.
 *
 * Every instance that does not send invalidations (off, and exclusive when not the owner) also
 * holds a shared lock of a second class ('PRC2'): a --cache shared instance serves from its cache
 * only while nobody holds it (uncachedAbsent), since such an instance's writes are never told.
 * Shared instances hold a third class ('PRC3') shared: a silent instance that finds it held waits
 * kSilentWaitMs after taking 'PRC2' before it serves, so every shared instance's cache is off by
 * then (its lease needs a probe younger than 250 ms that found 'PRC2' free: cache-lease.ts).
 *
 * So a second instance never serves a write while the first still serves reads from its cache;
 * it turns the cache off for everyone instead of refusing to start, because several instances
 * on one schema are a supported deployment (scripts' and the bus's tests run two). The owner does
 * not turn its cache back on when the others leave (the lock cannot tell it): restart it.
 * Losing the connection turns the cache off at once (a restarted Postgres forgot the lock, and an
 * unlogged keyspace may have been emptied); reconnecting takes the lock again as at start.
 * SQL run directly on the tables is not seen: use --cache off for such deployments, or send
 * NOTIFY on the lock's channel (named in the start's log line) before such writes: the owner takes
 * any notification there as a newcomer and turns its cache off, as above.
 *
 * exclusive is the default (2026-12-01, h17-default): it is on only while this instance is alone,
 * so the default is exact whatever else runs; the cost it adds where it does not pay is measured
 * in docs/cache.md ("On by default").
 */
import { createHash } from 'node:crypto';
import { NativePgConnection } from '../engine/pg-driver/native-conn';
import type { VersionTable } from '../engine/cache/version-table';

/** the first key of the lock: 'PRC1' */
const kLockClass = 0x50524331;
/** held (shared) by every instance whose writes are not told to --cache shared instances: 'PRC2' */
const kSilentClass = 0x50524332;
/** held (shared) by every --cache shared instance: 'PRC3' */
const kSharedClass = 0x50524333;
/** a silent instance's wait before it serves when shared instances run: their lease (250 ms) + a probe tick (100 ms) + margin */
const kSilentWaitMs = 400;
const kWaitMs = 10_000;

export class CacheLock {
  private conn: NativePgConnection | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly channel: string;
  private readonly key: number;
  /** the cache is on (this instance holds the exclusive lock) */
  owner = false;

  constructor(private readonly opts: { url: string; startupOptions: string; schema: string; mode: 'exclusive' | 'shared' | 'off';
    table: VersionTable; log: (line: string) => void }) {
    const digest = createHash('sha1').update(opts.schema).digest();
    this.key = digest.readInt32BE(0);
    this.channel = `postresp_cache_${digest.toString('hex').slice(0, 16)}`;
  }

  /** Resolves once the lock is held (exclusive or shared); throws when an owner does not let go. */
  async start(): Promise<void> {
    this.opts.table.setEnabled(false);
    const c = await NativePgConnection.connect(this.opts.url, {
      libpq: { options: this.opts.startupOptions, application_name: 'postresp-cache-lock' },
    });
    this.conn = c;
    c.onClose = (err) => { if (err) this.lost(err); };
    c.onNotification = () => void this.yieldLock();
    await c.query(`LISTEN "${this.channel}"`, [], { prepare: false });
    c.setListening(true);
    if (this.opts.mode === 'exclusive') {
      const r = await c.query('SELECT pg_try_advisory_lock($1::int4, $2::int4)', [kLockClass, this.key]);
      if (r.bool(0, 0) === true) {
        this.owner = true;
        this.opts.table.setEnabled(true);
        this.opts.log(`read cache on: the only instance serving schema ${this.opts.schema} (advisory lock held; another instance turns it off, and so does \`NOTIFY "${this.channel}"\` before SQL writes to the tables)`);
        this.started = true;
        return;
      }
    }
    const r = await c.query('SELECT pg_try_advisory_lock_shared($1::int4, $2::int4)', [kLockClass, this.key]);
    if (r.bool(0, 0) !== true) {
      this.opts.log(`read cache off: another instance caches schema ${this.opts.schema}; asking it to stop (waiting ≤ ${kWaitMs / 1000} s)`);
      await c.query(`NOTIFY "${this.channel}"`, [], { prepare: false });
      await c.query(`SET lock_timeout = ${kWaitMs}`, [], { prepare: false });
      try {
        await c.query('SELECT pg_advisory_lock_shared($1::int4, $2::int4)', [kLockClass, this.key]);
      } catch (e) {
        throw new Error(`another PostRESP instance keeps an exclusive read cache of schema ${this.opts.schema} and did not let go within ${kWaitMs / 1000} s (${(e as Error).message}); stop it or start it with --cache off`);
      }
    } else if (this.opts.mode === 'exclusive') {
      this.opts.log(`read cache off: another instance serves schema ${this.opts.schema}`);
    }
    if (this.opts.mode !== 'shared') await this.silent(c);
    else await c.query('SELECT pg_advisory_lock_shared($1::int4, $2::int4)', [kSharedClass, this.key]);
    this.started = true;
  }

  /** This instance's writes are not told to --cache shared instances: they must not cache. */
  private async silent(c: NativePgConnection): Promise<void> {
    await c.query('SELECT pg_advisory_lock_shared($1::int4, $2::int4)', [kSilentClass, this.key]);
    const r = await c.query('SELECT pg_try_advisory_xact_lock($1::int4, $2::int4)', [kSharedClass, this.key]);
    if (r.bool(0, 0) === true) return;
    this.opts.log(`read cache: --cache shared instances serve schema ${this.opts.schema}; waiting ${kSilentWaitMs} ms for their caches to turn off`);
    await new Promise((res) => setTimeout(res, kSilentWaitMs));
  }

  /** the lock connection is up and the lock held (a --cache shared lease needs it) */
  get held(): boolean {
    return this.conn !== undefined && !this.conn.closed && this.started;
  }

  private started = false;

  /** --cache shared: no instance that does not tell its writes serves the schema (a probe, ~1 round trip) */
  async uncachedAbsent(): Promise<boolean> {
    const c = this.conn;
    if (c === undefined || c.closed) return false;
    const r = await c.query('SELECT pg_try_advisory_xact_lock($1::int4, $2::int4)', [kSilentClass, this.key]);
    return r.bool(0, 0) === true;
  }

  /** Another instance starts: stop serving from the cache in every worker, then let it in. */
  private async yieldLock(): Promise<void> {
    if (!this.owner || this.conn === undefined) return;
    this.owner = false;
    this.opts.table.setEnabled(false);
    this.opts.log(`read cache off: another instance serves schema ${this.opts.schema} now`);
    try {
      await this.conn.query('SELECT pg_advisory_lock_shared($1::int4, $2::int4), pg_advisory_unlock($1::int4, $2::int4)', [kLockClass, this.key]);
      await this.silent(this.conn);
    } catch { /* lost: the lock went with the session */ }
  }

  private lost(err: Error): void {
    this.conn = undefined;
    this.started = false;
    this.opts.table.setEnabled(false);
    if (this.closed) return;
    if (this.owner) this.opts.log(`read cache off: lock connection lost (${err.message}); retrying`);
    this.owner = false;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.start().catch((e: Error) => {
        this.opts.log(`read cache lock: ${e.message}`);
        void this.conn?.close();
        this.conn = undefined;
        this.lost(e);
      });
    }, 500);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.opts.table.setEnabled(false);
    await this.conn?.close();
  }
}
