/**
 * INFO keyspace (`db0:keys=…,expires=…,avg_ttl=…`) and the storage lines of INFO persistence.
 * Counting is a scan of kv, so the result is cached for one second and concurrent INFO calls
 * share one query: ioredis sends INFO on every connect, and a connection storm must not turn
 * into a storm of full-table counts.
 */
import { live } from '../engine/commands/kv-row';
import type { PrimaryPg } from './primary-pg';

type Fields = [string, string | number][];
const kCacheMs = 1000;

export class KeyspaceInfo {
  private cached: { at: number; fields: Fields } | undefined;
  private running: Promise<Fields> | undefined;

  constructor(private readonly pg: PrimaryPg) {}

  async keyspace(): Promise<Fields> {
    if (this.cached && Date.now() - this.cached.at < kCacheMs) return this.cached.fields;
    this.running ??= this.count().finally(() => { this.running = undefined; });
    return this.running;
  }

  private async count(): Promise<Fields> {
    const now = Date.now();
    const rows = await this.pg.query(
      `SELECT db, count(*)::int8, count(expires_at)::int8, coalesce(avg(expires_at - $1) FILTER (WHERE expires_at IS NOT NULL), 0)::int8
       FROM kv WHERE ${live('kv', '$1')} GROUP BY db ORDER BY db`, [now]);
    const fields: Fields = rows.map((r) => [`db${r[0]}`, `keys=${r[1]},expires=${r[2]},avg_ttl=${r[3]},subexpiry=0`]);
    this.cached = { at: Date.now(), fields };
    return fields;
  }
}
