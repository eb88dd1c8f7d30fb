/**
 * ANALYZE of a table that was never analyzed, as soon as it holds rows enough to sample: a fresh
 * schema's tables have no statistics until autovacuum's first pass (autovacuum_naptime, a minute
 * by default, on a server we may not configure), and plans made meanwhile are cached by every
 * lane and by the functions' SPI plans until then. Without column statistics `key = $2` is taken
 * to match 0.5% of the rows, so a set-at-a-time statement on one growing collection (z_add's
 * multi-member CTE: ZADD with several pairs, GEOADD) was planned as a walk of the whole
 * collection per command: on a fresh server 2-pair ZADDs on one key fell from ~1,400/s to a few
 * hundred within 30 s and stayed there until the first ANALYZE (docs/BENCHMARKS.md, "Hot keys …
 * plans on fresh tables"). ANALYZE invalidates the cached plans, so every lane re-plans.
 *
 * Every intervalMs (2 s) for at most lifetimeMs (10 min): tables of the schema never analyzed
 * (by us or by autovacuum) with at least minRows changes are analyzed, one at a time, on a
 * connection of its own; it stops once every table has statistics. From then on autovacuum
 * keeps them current (its threshold is 50 rows + 10% of the table).
 */
import type { PrimaryPg } from './primary-pg';
import { quoteIdent } from './postgres/schema';

export interface EarlyAnalyzeOptions {
  schema: string;
  log: (line: string) => void;
  intervalMs?: number;
  lifetimeMs?: number;
  /** changes (n_mod_since_analyze) a never-analyzed table needs first */
  minRows?: number;
}

const kPending = `SELECT relname, n_mod_since_analyze >= $2 AS due FROM pg_stat_user_tables
  WHERE schemaname = $1 AND relname <> 'meta' AND last_analyze IS NULL AND last_autoanalyze IS NULL`;

export class EarlyAnalyze {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly until: number;
  /** tables this analyzed, for INFO-less checks (tests) */
  readonly analyzed: string[] = [];

  constructor(private readonly pg: PrimaryPg, private readonly opts: EarlyAnalyzeOptions) {
    this.until = Date.now() + (opts.lifetimeMs ?? 600_000);
  }

  start(): void {
    this.schedule();
  }

  /** One pass; true when nothing is left to wait for. */
  async pass(): Promise<boolean> {
    const rows = await this.pg.query(kPending, [this.opts.schema, this.opts.minRows ?? 1000]) as [string, boolean][];
    for (const [table, due] of rows) {
      if (!due || this.stopped) continue;
      const t0 = Date.now();
      await this.pg.query(`ANALYZE ${quoteIdent(this.opts.schema)}.${quoteIdent(table)}`);
      this.analyzed.push(table);
      this.opts.log(`analyzed ${this.opts.schema}.${table} (no statistics yet) in ${Date.now() - t0} ms`);
    }
    return rows.every(([, due]) => due);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped || Date.now() > this.until) return;
    this.timer = setTimeout(() => {
      // done: the connection goes back (autovacuum keeps the statistics from here)
      this.running = this.pass().then((done) => (done ? this.pg.close() : this.schedule()),
        (e: Error) => { this.opts.log(`early ANALYZE: ${e.message}`); this.schedule(); });
    }, this.opts.intervalMs ?? 2000);
    this.timer.unref();
  }
}
