/**
 * /metrics in the Prometheus text format (version 0.0.4). Histograms come from log2 buckets:
 * `le` bounds are powers of two (µs converted to seconds for durations).
 */
import type { PgLinkStats } from '../bus/pg-link';
import type { WorkerStats } from '../messages';
import { allLanes, mergeCommands, mergeErrors } from '../metrics/aggregate';
import { kBuckets, mergeInto, newHistogram } from '../metrics/log2-histogram';

export interface PrimaryFigures {
  connectedClients: number;
  totalConnectionsReceived: number;
  rejectedConnections: number;
  workerRestarts: number;
  uptimeSeconds: number;
  sweeperDeleted: number;
  embeddedPg?: { up: boolean; restarts: number; failures: number }; // only for a server we started
  bus?: PgLinkStats;
}

class Out {
  lines: string[] = [];
  head(name: string, type: 'counter' | 'gauge' | 'histogram', help: string): void {
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  }
  sample(name: string, labels: Record<string, string | number>, value: number): void {
    const l = Object.entries(labels).map(([k, v]) => `${k}="${String(v).replace(/["\\\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))}"`).join(',');
    this.lines.push(`${name}${l ? `{${l}}` : ''} ${value}`);
  }
  histogram(name: string, labels: Record<string, string | number>, h: number[], scale: number, sum: number): void {
    let cumulative = 0;
    let last = 0;
    for (let i = 0; i < kBuckets; i++) if (h[i] > 0) last = i;
    for (let i = 0; i <= last; i++) {
      cumulative += h[i];
      this.sample(`${name}_bucket`, { ...labels, le: (2 ** i) * scale }, cumulative);
    }
    this.sample(`${name}_bucket`, { ...labels, le: '+Inf' }, cumulative);
    this.sample(`${name}_sum`, labels, sum);
    this.sample(`${name}_count`, labels, cumulative);
  }
}

export function renderMetrics(workers: WorkerStats[], p: PrimaryFigures): string {
  const o = new Out();
  o.head('postresp_connected_clients', 'gauge', 'Clients connected now.');
  o.sample('postresp_connected_clients', {}, p.connectedClients);
  o.head('postresp_connections_received_total', 'counter', 'Connections accepted since start.');
  o.sample('postresp_connections_received_total', {}, p.totalConnectionsReceived);
  o.head('postresp_rejected_connections_total', 'counter', 'Connections refused (maxclients).');
  o.sample('postresp_rejected_connections_total', {}, p.rejectedConnections);
  o.head('postresp_worker_restarts_total', 'counter', 'Worker threads replaced after a crash.');
  o.sample('postresp_worker_restarts_total', {}, p.workerRestarts);
  o.head('postresp_uptime_seconds', 'gauge', 'Seconds since start.');
  o.sample('postresp_uptime_seconds', {}, p.uptimeSeconds);
  const commands = mergeCommands(workers);
  o.head('postresp_commands_total', 'counter', 'Commands executed, by command.');
  for (const [cmd, c] of commands) o.sample('postresp_commands_total', { cmd }, c.calls);
  o.head('postresp_command_failures_total', 'counter', 'Commands that replied with an error, by command.');
  for (const [cmd, c] of commands) o.sample('postresp_command_failures_total', { cmd }, c.failed);
  o.head('postresp_command_duration_seconds', 'histogram', 'Time from dispatch to reply value, by command.');
  for (const [cmd, c] of commands) o.histogram('postresp_command_duration_seconds', { cmd }, c.hist, 1e-6, c.usec / 1e6);
  o.head('postresp_errors_total', 'counter', 'Error replies, by error code (ERR, WRONGTYPE, NOAUTH…).');
  for (const [code, n] of mergeErrors(workers)) o.sample('postresp_errors_total', { code }, n);
  o.head('postresp_rejected_calls_total', 'counter', 'Commands refused before running (unknown, arity, NOAUTH).');
  o.sample('postresp_rejected_calls_total', {}, workers.reduce((a, w) => a + w.rejectedCalls, 0));
  const lanes = allLanes(workers);
  o.head('postresp_lane_connected', 'gauge', 'Whether a lane has its Postgres connection.');
  for (const l of lanes) o.sample('postresp_lane_connected', { worker: l.worker, lane: l.lane }, l.stats.connected ? 1 : 0);
  o.head('postresp_batch_size', 'histogram', 'Operations per batch sent to Postgres, per lane.');
  for (const l of lanes) o.histogram('postresp_batch_size', { worker: l.worker, lane: l.lane }, l.stats.batchSize, 1, l.stats.ops);
  o.head('postresp_batch_duration_seconds', 'histogram', 'Round trip of a batch (all its statements), all lanes.');
  const batchUsec = newHistogram();
  for (const l of lanes) mergeInto(batchUsec, l.stats.batchUsec);
  o.histogram('postresp_batch_duration_seconds', {}, batchUsec, 1e-6, lanes.reduce((a, l) => a + l.stats.flightUsec, 0) / 1e6);
  o.head('postresp_pg_statements_total', 'counter', 'Statements sent to Postgres.');
  o.sample('postresp_pg_statements_total', {}, lanes.reduce((a, l) => a + l.stats.statements, 0));
  o.head('postresp_pg_errors_total', 'counter', 'Postgres statement and connection errors.');
  o.sample('postresp_pg_errors_total', {}, lanes.reduce((a, l) => a + l.stats.errors, 0));
  o.head('postresp_pg_reconnects_total', 'counter', 'Lane reconnection attempts.');
  o.sample('postresp_pg_reconnects_total', {}, lanes.reduce((a, l) => a + l.stats.reconnects, 0));
  o.head('postresp_batch_transactions_total', 'counter', 'Lane batches of several statements committed as one transaction (--batch-transaction).');
  o.sample('postresp_batch_transactions_total', {}, lanes.reduce((a, l) => a + l.stats.txBatches, 0));
  o.head('postresp_batch_transaction_retries_total', 'counter', 'Batch transactions that failed (a statement error or a deadlock) and ran again statement by statement.');
  o.sample('postresp_batch_transaction_retries_total', {}, lanes.reduce((a, l) => a + l.stats.txRetries, 0));
  o.head('postresp_lane_conflict_resends_total', 'counter', 'A batch\'s last statement sent again after Postgres chose it as a deadlock victim (or a serialization failure): the client saw no error.');
  o.sample('postresp_lane_conflict_resends_total', {}, lanes.reduce((a, l) => a + l.stats.conflictResends, 0));
  o.head('postresp_sweeper_deleted_total', 'counter', 'Expired keys deleted by the active sweeper.');
  o.sample('postresp_sweeper_deleted_total', {}, p.sweeperDeleted);
  if (p.embeddedPg) {
    o.head('postresp_embedded_pg_up', 'gauge', 'Whether the embedded PostgreSQL is running (0 while it is restarted).');
    o.sample('postresp_embedded_pg_up', {}, p.embeddedPg.up ? 1 : 0);
    o.head('postresp_embedded_pg_restarts_total', 'counter', 'Restarts of the embedded PostgreSQL after it died.');
    o.sample('postresp_embedded_pg_restarts_total', {}, p.embeddedPg.restarts);
    o.head('postresp_embedded_pg_restart_failures_total', 'counter', 'Restart attempts that failed.');
    o.sample('postresp_embedded_pg_restart_failures_total', {}, p.embeddedPg.failures);
  }
  if (p.bus) renderBus(o, p.bus);
  renderCache(o, workers);
  return `${o.lines.join('\n')}\n`;
}

/** The read cache (docs/cache.md), all workers summed; nothing with --cache off. */
function renderCache(o: Out, workers: WorkerStats[]): void {
  const cs = workers.map((w) => w.cache).filter((c) => c !== undefined);
  if (cs.length === 0) return;
  const sum = (f: (c: (typeof cs)[number]) => number): number => cs.reduce((a, c) => a + f(c), 0);
  const rows: [string, 'gauge' | 'counter', string, number][] = [
    ['postresp_cache_enabled', 'gauge', 'Whether the read cache serves (this instance alone on the schema).', cs.some((c) => c.enabled) ? 1 : 0],
    ['postresp_cache_bytes', 'gauge', 'Bytes of the read cache arena in use (entries with their headers, dead ones not yet reclaimed).', sum((c) => c.bytes)],
    ['postresp_cache_entries', 'gauge', 'Keys the read cache holds.', sum((c) => c.entries)],
    ['postresp_cache_hits_total', 'counter', 'GET/MGET keys answered from the cache.', sum((c) => c.hits)],
    ['postresp_cache_misses_total', 'counter', 'GET/MGET keys read from Postgres.', sum((c) => c.misses)],
    ['postresp_cache_invalidations_total', 'counter', 'Entries found stale after a write.', sum((c) => c.invalidations)],
    ['postresp_cache_evictions_total', 'counter', 'Entries dropped for room.', sum((c) => c.evictions)],
    ['postresp_cache_rejected_total', 'counter', 'Reads not kept: not admitted while full, or value too large.', sum((c) => c.rejected)],
    ['postresp_cache_bypassed_total', 'counter', 'Reads sent to Postgres without a lookup: the worker\'s hit ratio was under a quarter.', sum((c) => c.bypassed)],
  ];
  for (const [name, type, help, v] of rows) {
    o.head(name, type, help);
    o.sample(name, {}, v);
  }
}

/** The message bus between instances (core/bus/pg-link.ts, docs/messaging.md). */
function renderBus(o: Out, b: PgLinkStats): void {
  const rows: [string, 'gauge' | 'counter', string, number][] = [
    ['postresp_bus_connected', 'gauge', 'Whether the LISTEN/NOTIFY connection is up.', b.connected ? 1 : 0],
    ['postresp_bus_notification_queue_usage', 'gauge', 'pg_notification_queue_usage(): share of the 8 GB notification queue in use (a listener that stops reading fills it; at 1 every NOTIFY fails).', b.queueUsage],
    ['postresp_bus_remote_instances', 'gauge', 'Other PostRESP instances on this schema.', b.remoteInstances],
    ['postresp_bus_remote_interest', 'gauge', 'Channels, patterns and blocked keys other instances listen for.', b.remoteKeys],
    ['postresp_bus_notifications_total', 'counter', 'Notifications sent.', b.notifications],
    ['postresp_bus_transactions_total', 'counter', 'Notifying transactions committed.', b.transactions],
    ['postresp_bus_items_sent_total', 'counter', 'Messages and wake-ups sent to other instances.', b.itemsOut],
    ['postresp_bus_items_received_total', 'counter', 'Messages and wake-ups received from other instances.', b.itemsIn],
    ['postresp_bus_large_sent_total', 'counter', 'Messages sent through the bus_messages table (too large for a notification).', b.largeOut],
    ['postresp_bus_dropped_total', 'counter', 'Messages not sent: disconnected, or the notifying transaction failed.', b.dropped],
    ['postresp_bus_lost_total', 'counter', 'Notifications of other instances missed (gaps in their sequence, e.g. while reconnecting).', b.lost],
    ['postresp_bus_large_missing_total', 'counter', 'Large messages whose row was already deleted when fetched.', b.largeMissing],
    ['postresp_bus_reconnects_total', 'counter', 'Reconnections of the LISTEN/NOTIFY connection.', b.reconnects],
    ['postresp_bus_served_waits_total', 'counter', 'Pushes whose reply waited for other instances to serve the blocked clients they woke there.', b.servedWaits],
    ['postresp_bus_served_timeouts_total', 'counter', 'Of those, the ones whose wait was given up after 1 s (an instance slow, stuck or gone).', b.servedTimeouts],
  ];
  for (const [name, type, help, v] of rows) {
    o.head(name, type, help);
    o.sample(name, {}, v);
  }
}
