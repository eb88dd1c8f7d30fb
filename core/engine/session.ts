/**
 * What a command handler may use: its client's session state and the worker's server context.
 * Implemented by workers/client.ts and workers/state.ts; commands never touch sockets.
 */
import type { Config } from '../config/config';
import type { WorkerStats } from '../messages';
import type { CommandTable } from './commands/registry';
import type { KeyStore } from './key-store';
import type { WriteHook } from './write-hook';
import type { BlockedCall, BlockingHost } from './commands/blocking/blocked-call';
import type { MessageBus } from '../bus/bus';
import type { Subscriptions } from './commands/pubsub/subscriptions';
import type { UserRegistry, AclMutation } from '../acl/registry';
import type { AclLog } from '../acl/log';
import type { User } from '../acl/user';
import type { ClientTracking } from './tracking/client-tracking';
import type { Tracker } from './tracking/tracker';
import type { BulkSink } from './cache/arena';

export interface ClientFilter {
  id?: number[];
  addr?: string;
  laddr?: string;
  type?: string;
  user?: string;
  maxage?: number;
  /** id of the caller when SKIPME yes */
  skip?: number;
}

export interface InfoData {
  workers: WorkerStats[];
  primary: Record<string, number>;
  /** sections the primary adds (persistence, keyspace from Postgres): name → field lines */
  sections?: Record<string, [string, string | number][]>;
}

export interface ServerContext {
  readonly config: Config;
  readonly commands: CommandTable;
  readonly store: KeyStore;
  /** this worker's committed-write hook (EXEC reports its queued commands through it) */
  readonly writeHook: WriteHook;
  /** blocked clients' keys and wake-ups (commands/blocking/waits.ts) */
  readonly blocking: BlockingHost;
  /** pub/sub and wake-ups across workers and instances (core/bus) */
  readonly bus: MessageBus;
  readonly runId: string;
  /** this worker's ACL users (core/acl), equal on every worker */
  readonly acl: UserRegistry;
  readonly aclLog: AclLog;
  /** ACL SETUSER / DELUSER / LOAD / SAVE through the primary: Redis's error text, or null */
  aclRequest(m: AclMutation | { op: 'loadfile' } | { op: 'save' }): Promise<string | null>;
  /** every worker's ACL LOG entries merged (reset: cleared everywhere) */
  aclLogGather(reset: boolean): Promise<unknown>;
  readonly startedAt: number;
  readonly workerIndex: number;
  /** CLIENT TRACKING: this worker's tracking table and invalidations (core/engine/tracking) */
  readonly tracker: Tracker;
  /** a connection with this id is on this worker */
  hasClient(id: number): boolean;
  /** CLIENT LIST lines of every worker's clients, by id */
  clientList(filter?: ClientFilter): Promise<string[]>;
  killClients(filter: ClientFilter): Promise<number>;
  /** CLIENT UNBLOCK on any worker: 1 when that client was blocked */
  unblockClient(id: number, error: boolean): Promise<number>;
  info(): Promise<InfoData>;
  /** validated already; applies here at once and everywhere else through the primary */
  configSet(pairs: [string, string][]): Promise<void>;
  /** a line to the worker's server log (stderr; loglevel applies) */
  log(line: string): void;
  /** CONFIG RESETSTAT: resolves once every worker and the primary cleared theirs */
  resetStats(): Promise<void>;
  shutdown(): Promise<void>;
  /** DEBUG PANIC: kill this worker thread (tests of the crash path) */
  crash(): void;
}

export type ReplyMode = 'on' | 'off' | 'skip';

/** A command queued between MULTI and EXEC, already resolved and arity-checked. */
export interface QueuedCommand { spec: import('./commands/spec').CommandSpec; argv: Buffer[] }

/**
 * A key WATCHed: the kv.version EXEC compares, of the live key or, for a key absent or expired
 * then, of its watch mark (core/engine/commands/transactions/functions.ts), which the session releases when done.
 * WATCH adds it at once and fills it when Postgres answers (`pending` until then), so commands
 * pipelined behind WATCH (MULTI … EXEC, UNWATCH) find it.
 */
export interface WatchedKey { db: number; key: Buffer; version: string; mark: boolean; pending: PromiseLike<unknown> | undefined }

export interface Session {
  readonly id: number;
  readonly server: ServerContext;
  /** accepted on a loopback address or the Unix socket */
  readonly local: boolean;
  name: string;
  libName: string;
  libVer: string;
  db: number;
  proto: 2 | 3;
  /**
   * Redis's c->authenticated. Set it synchronously inside a handler (AUTH, HELLO, RESET do): the
   * parser's unauthenticated limits for the rest of the packet follow it from the next request on.
   */
  authenticated: boolean;
  /** the ACL user this connection runs as (Redis's c->user) */
  user: User;
  replyOff: boolean;
  skipNext: boolean;
  noEvict: boolean;
  noTouch: boolean;
  /** commands queued since MULTI; undefined outside a transaction */
  multi: QueuedCommand[] | undefined;
  /** a command failed to queue: EXEC answers EXECABORT */
  multiAborted: boolean;
  /** set while EXEC runs its queue: blocking commands answer at once (Redis's CLIENT_DENY_BLOCKING) */
  denyBlocking?: boolean;
  watched: WatchedKey[];
  /** EVAL/FCALL: the client's later commands wait until `done` settles (workers/dispatch.ts
   * holdWhile); a script call's `queued` settles once it is queued for a script connection, and
   * a script call pipelined right behind it may then run beside it (workers/script-join.ts) */
  holdWhile?(done: PromiseLike<unknown>, queued?: PromiseLike<unknown>): void;
  /** resolves once the replies owed now are final (their commands completed); undefined when none is (PUBLISH) */
  priorSettled?(): Promise<void> | undefined;
  /** the blocking command in progress (commands/blocking): the client's later commands wait for it */
  blocked: BlockedCall | undefined;
  /**
   * Replies owed for commands that may write (not flagged readonly: SET, EXEC, EVAL…), counted by
   * dispatch. While any is owed the read cache does not answer this session: its own write may be
   * in flight, and a write bumps the version table only once its outcome is known (docs/cache.md).
   * Undefined where the cache is never asked (a script's session, EXEC's queue).
   */
  unackedWrites?: number;
  /**
   * Set by dispatch while a command runs whose reply would be written at once (nothing owed
   * before it, not silent, no write-hook listener or tracking to report it to): the client's
   * writer, where a GET's cache hit is copied straight from the arena (ReadOp.sink). Undefined
   * otherwise, and where there is no connection.
   */
  replySink?: BulkSink;
  /** the connection is gone */
  readonly isClosed: boolean;
  /** CLIENT TRACKING on: its mode; undefined when off (and for a script's session) */
  tracking?: ClientTracking;
  /** a connection's channels and patterns (SUBSCRIBE…); undefined where there is no connection */
  readonly subscriptions?: Subscriptions;
  /** reply, then close the connection (QUIT) */
  closeAfterReply(): void;
  /** this client's CLIENT LIST line */
  describe(): string;
  /** RESET: back to a fresh connection's state; resolves once its subscriptions are gone everywhere */
  reset(): Promise<void> | undefined;
}
