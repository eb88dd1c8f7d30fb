/**
 * Messages between the primary thread and the workers (one MessagePort per worker).
 *
 *   primary ──conn{fd}──────────▶ worker      worker ──closed{id}──▶ primary
 *   primary ──config{name,value}▶ worker      either ──request{rid,op}──▶ other ──response{rid}──▶
 *   primary ──expired{dbs,keys}─▶ worker      worker ──hook{listening}──▶ primary
 */
import type { BusToHub, HubToBus } from './bus/messages';
import type { OptionValue } from './config/values';

export interface ConnMessage {
  type: 'conn';
  id: number;
  fd: number;
  /** accepted on the Unix socket (CLIENT LIST shows no TCP address; DEBUG 'local' allows it) */
  unix: boolean;
  /** accepted on the tls-port listener: the worker runs the TLS handshake (workers/tls-socket.ts) */
  tls: boolean;
}
export interface ClosedMessage { type: 'closed'; id: number }
/** keys the sweeper deleted, to the workers whose write hook has listeners (core/engine/write-hook.ts) */
export interface ExpiredMessage {
  type: 'expired';
  dbs: number[];
  /** the keys back to back in one buffer of their own (a view would clone its whole backing store); key i ends at ends[i] */
  keys: Uint8Array;
  ends: number[];
}
/** a worker's write hook gained its first listener (true) or lost its last (false) */
export interface HookMessage { type: 'hook'; listening: boolean }
export interface RequestMessage { type: 'request'; rid: number; op: string; args: unknown }
export interface ResponseMessage { type: 'response'; rid: number; result?: unknown; error?: string }

export type PrimaryToWorker = ConnMessage | ExpiredMessage | RequestMessage | ResponseMessage | HubToBus;
export type WorkerToPrimary = ClosedMessage | HookMessage | RequestMessage | ResponseMessage | { type: 'ready' } | BusToHub;

/** Data of the long-lived Piscina `serve` task that each worker runs. */
export interface ServeTask {
  port: import('node:worker_threads').MessagePort;
  workerIndex: number;
  config: Record<string, OptionValue>;
  runId: string;
  startedAt: number;
  tcpPort: number;
  /** ACL LIST lines of the primary's users (core/primary/acl-host.ts) */
  acl: string[];
  storage: { url: string; startupOptions: string; storageMode: string; schema: string };
  /** TLS session ticket keys (48 bytes), the same for every worker (core/tls/secure-context.ts) */
  tlsTicketKeys?: Uint8Array;
  /** the read cache's version table (core/engine/cache/version-table.ts); absent with --cache off */
  cacheVersions?: SharedArrayBuffer;
  /** --shared-lanes: ring i carries worker i's SETs to worker 0's lanes (core/engine/lane-ring.ts) */
  laneRings?: (SharedArrayBuffer | undefined)[];
  /** the read cache's entries, one arena per process shared by the workers (core/engine/cache/arena.ts) */
  cacheArena?: SharedArrayBuffer;
}

export interface CommandStats {
  calls: number;
  usec: number;
  rejected: number;
  failed: number;
  /** log2 µs buckets (core/metrics/log2-histogram.ts) */
  hist: number[];
}

export interface LaneStats {
  batches: number;
  ops: number;
  statements: number;
  errors: number;
  reconnects: number;
  /** batches sent as one transaction (workers/storage/batch-tx.ts), and those sent again run by run after an error */
  txBatches: number;
  txRetries: number;
  /** a batch's last run sent again after a deadlock or serialization failure (workers/storage/lane.ts) */
  conflictResends: number;
  connected: boolean;
  /** log2 buckets of ops per batch */
  batchSize: number[];
  /** log2 µs buckets of batch round trips (send → last result) */
  batchUsec: number[];
  /** those round trips summed, µs: /metrics' postresp_batch_duration_seconds_sum (time a lane had a batch in flight) */
  flightUsec: number;
}

/** What each worker reports for INFO / CLIENT LIST aggregation. */
export interface WorkerStats {
  connectedClients: number;
  blockedClients: number;
  totalCommands: number;
  rejectedCalls: number;
  failedCalls: number;
  netInputBytes: number;
  netOutputBytes: number;
  commands: Record<string, CommandStats>;
  lanes: LaneStats[];
  errorCodes: Record<string, number>;
  cpuUser: number;
  cpuSys: number;
  /** EVAL/FCALL transactions (workers/storage/script-pool.ts); absent before the first stats snapshot */
  scripts?: { calls: number; retries: number; lockRestarts: number; batchedCalls: number; batches: number };
  /** CLIENT TRACKING (core/engine/tracking/tracker.ts); absent before the first stats snapshot */
  tracking?: import('./engine/tracking/tracker').TrackingStats;
  /** pub/sub messages this worker wrote to other workers' subscribers itself, and those that went through the channel (core/bus/socket-slots.ts) */
  bus?: { directSent: number; directMissed: number };
  /** the read cache (absent with --cache off) */
  cache?: import('./engine/cache/near-cache').CacheStats & { enabled: boolean; shared?: import('./engine/cache/shared-invalidations').SharedCacheStats };
}
