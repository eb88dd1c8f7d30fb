/**
 * INFO [section …] — Redis's sections and field names, so tools that parse them keep working.
 * Counters are gathered from every worker through the primary.
 * https://redis.io/commands/info/
 */
import os from 'node:os';
import path from 'node:path';
import { RespVerbatim } from '../../reply';
import type { InfoData, Session } from '../../session';
import { kPostrespVersion, kRedisVersion } from '../../../version';
import { lower } from '../args';
import { defineCommand } from '../define';
import type { WorkerStats } from '../../../messages';
import { mergeCommands, mergeErrors } from '../../../metrics/aggregate';
import { quantile } from '../../../metrics/log2-histogram';
import { scriptingMemoryFields } from '../scripting/info-fields';

type Fields = [string, string | number][];

/**
 * Redis 7.0's sections in the order it prints them whatever the order asked (genRedisInfoString);
 * `INFO` alone and `default` name those marked default, `all` and `everything` every one (we have
 * no module sections, which `everything` adds). Names are case-insensitive; unknown ones are
 * skipped, so `INFO nosuch` is an empty string. `module_list` is another name for `modules`.
 */
const kOrder: [name: string, inDefault: boolean][] = [
  ['server', true], ['clients', true], ['memory', true], ['persistence', true], ['stats', true],
  ['replication', true], ['cpu', true], ['modules', true], ['commandstats', false], ['errorstats', true],
  ['latencystats', false], ['cluster', true], ['keyspace', true], ['cache', false],
];
const kAliases: Record<string, string> = { module_list: 'modules' };
/** sections Redis does not have */
const kOwn = new Set(['cache']);

/** Redis shows its binary's absolute path; ours is the entry point, not the worker script it runs in */
const kExecutable = path.resolve(__dirname, '..', '..', '..', 'primary', 'main.js');

/** The section names INFO argv[1…] asks for. */
export function wantedSections(args: string[]): Set<string> {
  const all = args.some((a) => a === 'all' || a === 'everything');
  const out = new Set<string>();
  for (const [name, inDefault] of kOrder) {
    // PostRESP's own sections only by name: `all` prints what redis-server prints
    if ((all && !kOwn.has(name)) || (inDefault && (args.length === 0 || args.includes('default')))) out.add(name);
  }
  for (const a of args) out.add(kAliases[a] ?? a);
  return out;
}

function sum(ws: WorkerStats[], f: (w: WorkerStats) => number): number {
  return ws.reduce((a, w) => a + f(w), 0);
}

function sections(s: Session, d: InfoData, scripting: Fields): Record<string, () => Fields> {
  const w = d.workers;
  const now = Date.now();
  const up = Math.floor((now - s.server.startedAt) / 1000);
  const mem = process.memoryUsage();
  const cpu = process.cpuUsage();
  return {
    server: () => [
      ['redis_version', kRedisVersion], ['postresp_version', kPostrespVersion], ['redis_git_sha1', '00000000'],
      ['redis_git_dirty', 0], ['redis_mode', 'standalone'], ['os', `${os.type()} ${os.release()} ${os.arch()}`],
      ['arch_bits', 64], ['multiplexing_api', 'epoll'], ['node_version', process.versions.node],
      ['process_id', process.pid], ['run_id', s.server.runId], ['tcp_port', d.primary.tcpPort ?? 0],
      ['server_time_usec', now * 1000], ['uptime_in_seconds', up], ['uptime_in_days', Math.floor(up / 86400)],
      ['hz', 10], ['configured_hz', 10], ['executable', kExecutable], ['config_file', ''],
      ['io_threads_active', 0], ['worker_threads', d.primary.workers ?? 0], ['worker_restarts', d.primary.workerRestarts ?? 0],
    ],
    clients: () => [
      ['connected_clients', d.primary.connectedClients ?? sum(w, (x) => x.connectedClients)],
      ['cluster_connections', 0], ['maxclients', s.server.config.int('maxclients')],
      ['client_recent_max_input_buffer', 0], ['client_recent_max_output_buffer', 0],
      ['blocked_clients', sum(w, (x) => x.blockedClients)], ['tracking_clients', sum(w, (x) => x.tracking?.clients ?? 0)], ['clients_in_timeout_table', 0],
    ],
    memory: () => [
      ['used_memory', mem.heapUsed + mem.external], ['used_memory_human', human(mem.heapUsed + mem.external)],
      ['used_memory_rss', mem.rss], ['used_memory_rss_human', human(mem.rss)], ...scripting,
      ['maxmemory', 0], ['maxmemory_human', '0B'], ['maxmemory_policy', 'noeviction'], ['mem_allocator', 'node'],
    ],
    persistence: () => [['loading', 0], ['async_loading', 0], ['rdb_changes_since_last_save', 0],
      ['rdb_bgsave_in_progress', 0], ['rdb_last_bgsave_status', 'ok'], ['aof_enabled', 0], ['aof_rewrite_in_progress', 0]],
    stats: () => [
      ['total_connections_received', d.primary.totalConnectionsReceived ?? 0],
      ['total_commands_processed', sum(w, (x) => x.totalCommands)],
      ['instantaneous_ops_per_sec', 0],
      ['total_net_input_bytes', sum(w, (x) => x.netInputBytes)], ['total_net_output_bytes', sum(w, (x) => x.netOutputBytes)],
      ['rejected_connections', d.primary.rejectedConnections ?? 0],
      ['expired_keys', 0], ['evicted_keys', 0], ['keyspace_hits', 0], ['keyspace_misses', 0],
      // this instance's, every worker's (core/bus keeps the other workers' counts in each)
      ['pubsub_channels', s.server.bus.channelNames('c').length], ['pubsub_patterns', s.server.bus.patternCount()],
      ['pubsubshard_channels', s.server.bus.channelNames('s').length],
      ['tracking_total_keys', sum(w, (x) => x.tracking?.keys ?? 0)], ['tracking_total_items', sum(w, (x) => x.tracking?.items ?? 0)],
      ['tracking_total_prefixes', sum(w, (x) => x.tracking?.prefixes ?? 0)],
      // no total_rejected_calls / total_failed_calls: Redis 7.0 has them per command only
      // (commandstats), and its suite checks that default INFO does not mention rejected_calls
      ['total_error_replies', sum(w, (x) => Object.values(x.errorCodes).reduce((a, b) => a + b, 0))],
      // EVAL/FCALL transactions: re-run after a serialization failure or deadlock (the script ran
      // again), restarted while locking the declared keys (before it ran)
      ['postresp_script_calls', sum(w, (x) => x.scripts?.calls ?? 0)],
      ['postresp_script_retries', sum(w, (x) => x.scripts?.retries ?? 0)],
      ['postresp_script_lock_restarts', sum(w, (x) => x.scripts?.lockRestarts ?? 0)],
      // calls that shared a transaction with others queued behind the same connection, and those transactions
      ['postresp_script_batched_calls', sum(w, (x) => x.scripts?.batchedCalls ?? 0)],
      ['postresp_script_batches', sum(w, (x) => x.scripts?.batches ?? 0)],
      // pub/sub messages a worker wrote to another worker's subscriber itself, and those that
      // went to the subscriber's worker instead (it owed replies, or its socket was full): docs/messaging.md
      ['postresp_pubsub_direct_writes', sum(w, (x) => x.bus?.directSent ?? 0)],
      ['postresp_pubsub_direct_missed', sum(w, (x) => x.bus?.directMissed ?? 0)],
    ],
    replication: () => [['role', 'master'], ['connected_slaves', 0], ['master_failover_state', 'no-failover'],
      ['master_replid', s.server.runId], ['master_repl_offset', 0]],
    cpu: () => [['used_cpu_sys', (cpu.system / 1e6).toFixed(6)], ['used_cpu_user', (cpu.user / 1e6).toFixed(6)],
      ['used_cpu_sys_children', '0.000000'], ['used_cpu_user_children', '0.000000']],
    modules: () => [],
    commandstats: () => [...mergeCommands(w)].map(([name, c]) => [`cmdstat_${name}`,
      `calls=${c.calls},usec=${Math.round(c.usec)},usec_per_call=${(c.calls ? c.usec / c.calls : 0).toFixed(2)},` +
      `rejected_calls=${c.rejected},failed_calls=${c.failed}`]),
    errorstats: () => [...mergeErrors(w)].map(([code, n]) => [`errorstat_${code}`, `count=${n}`]),
    // from log2 buckets: each figure is the upper bound of its bucket (within 2x, like Redis's
    // own histograms are within 1%: good enough to spot a tail, not to publish)
    latencystats: () => [...mergeCommands(w)].map(([name, c]) => [`latency_percentiles_usec_${name}`,
      `p50=${quantile(c.hist, 0.5).toFixed(3)},p99=${quantile(c.hist, 0.99).toFixed(3)},p99.9=${quantile(c.hist, 0.999).toFixed(3)}`]),
    cluster: () => [['cluster_enabled', 0]],
    keyspace: () => [],
    cache: () => cacheFields(s, w),
  };
}

/** INFO cache (docs/cache.md): the workers' read caches summed */
function cacheFields(s: Session, w: WorkerStats[]): Fields {
  const cs = w.map((x) => x.cache).filter((c) => c !== undefined);
  const total = (f: (c: NonNullable<WorkerStats['cache']>) => number): number => cs.reduce((a, c) => a + f(c), 0);
  const hits = total((c) => c.hits);
  const misses = total((c) => c.misses);
  return [
    ['cache_mode', s.server.config.str('cache')], ['cache_enabled', cs.some((c) => c.enabled) ? 1 : 0],
    ['cache_max_memory', s.server.config.int('cache-max-memory')], ['cache_bytes', total((c) => c.bytes)],
    ['cache_entries', total((c) => c.entries)], ['cache_hits', hits], ['cache_misses', misses],
    ['cache_hit_ratio', (hits + misses === 0 ? 0 : hits / (hits + misses)).toFixed(4)],
    ['cache_fills', total((c) => c.fills)], ['cache_fill_races', total((c) => c.raced)],
    ['cache_invalidations', total((c) => c.invalidations)], ['cache_evictions', total((c) => c.evictions)],
    ['cache_rejected', total((c) => c.rejected)], ['cache_fill_busy', total((c) => c.busy)],
    ['cache_torn_reads', total((c) => c.torn)], ['cache_bypassed', total((c) => c.bypassed)],
    // --cache shared: slot hashes sent to other instances, and received from them (docs/cache.md)
    ...(s.server.config.str('cache') === 'shared' ? [
      ['cache_shared_sent', total((c) => c.shared?.sent ?? 0)], ['cache_shared_messages', total((c) => c.shared?.messages ?? 0)],
      ['cache_shared_received', total((c) => c.shared?.received ?? 0)], ['cache_shared_epochs', total((c) => c.shared?.epochs ?? 0)],
    ] as Fields : []),
  ];
}

/**
 * A section's fields with the primary's (d.sections: the sweeper's expired_keys, the storage's
 * persistence and keyspace lines, config_file…): same name replaces the placeholder, new ones follow.
 */
function withPrimary(fields: Fields, extra: Fields | undefined): Fields {
  if (extra === undefined || extra.length === 0) return fields;
  const at = new Map(fields.map(([k], i) => [k, i]));
  const out = [...fields];
  for (const [k, v] of extra) {
    const i = at.get(k);
    if (i === undefined) out.push([k, v]);
    else out[i] = [k, v];
  }
  return out;
}

function human(n: number): string {
  const units = ['B', 'K', 'M', 'G', 'T'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return i === 0 ? `${n}B` : `${n.toFixed(2)}${units[i]}`;
}

const kTitles: Record<string, string> = { cpu: 'CPU', commandstats: 'Commandstats', errorstats: 'Errorstats', latencystats: 'Latencystats' };

export const info = defineCommand({
  name: 'info', arity: -1, flags: ['loading', 'stale', 'sentinel'], acl: ['slow', 'dangerous'],
  tips: ['nondeterministic_output', 'request_policy:all_shards', 'response_policy:special'],
  summary: 'Returns information and statistics about the server.',
  async run(s, argv) {
    const wanted = wantedSections(argv.slice(1).map(lower));
    const [data, scripting] = await Promise.all([s.server.info(), wanted.has('memory') ? scriptingMemoryFields(s) : []]);
    const all = sections(s, data, scripting);
    const parts: string[] = [];
    for (const [name] of kOrder) {
      if (!wanted.has(name)) continue;
      const title = kTitles[name] ?? name[0].toUpperCase() + name.slice(1);
      const fields = withPrimary(all[name](), data.sections?.[name]);
      parts.push(`# ${title}\r\n${fields.map(([k, v]) => `${k}:${v}\r\n`).join('')}`);
    }
    return new RespVerbatim('txt', parts.join('\r\n'));
  },
});
