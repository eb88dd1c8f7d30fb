/**
 * Everything one worker thread owns: its clients, its statistics, its copy of the configuration,
 * and the link to the primary. It is the ServerContext that command handlers see.
 */
import type { MessagePort } from 'node:worker_threads';
import { Config, type OutputLimit } from '../core/config/config';
import type { CommandTable } from '../core/engine/commands/registry';
import type { CommandSpec } from '../core/engine/commands/spec';
import type { CommandStats, ConnMessage, ExpiredMessage, PrimaryToWorker, ServeTask, WorkerStats } from '../core/messages';
import { RespError, type Reply } from '../core/engine/reply';
import { Rpc } from '../core/rpc';
import type { ClientFilter, InfoData, ServerContext } from '../core/engine/session';
import { Client } from './client';
import { hookListening } from './hook-listening';
import { matchesFilter } from './client-filter';
import { LaneStore } from './storage/lane-store';
import { unwatchAll } from '../core/engine/commands/transactions/watch';
import { newHistogram, record as recordLatency } from '../core/metrics/log2-histogram';
import { WriteHook } from '../core/engine/write-hook';
import { busChannelName, MessageBus } from '../core/bus/bus';
import { BlockingWaits } from '../core/engine/commands/blocking/waits';
import { KeyspaceNotifier } from '../core/engine/keyspace-events';
import { parseNotifyFlags } from '../core/config/notify-flags';
import { AclCommandIndex, aclSpecs } from '../core/acl/command-index';
import { UserRegistry, type AclMutation } from '../core/acl/registry';
import { AclLog } from '../core/acl/log';
import { startReadCache } from './read-cache';
import { SharedInvalidations } from '../core/engine/cache/shared-invalidations';
import { Tracker } from '../core/engine/tracking/tracker';
import { isTlsOption } from '../core/tls/secure-context';
import { WorkerTls } from './worker-tls';
import { loadNative } from '../core/native';

const native = loadNative();

export function emptyStats(): WorkerStats {
  return {
    connectedClients: 0, blockedClients: 0, totalCommands: 0, rejectedCalls: 0, failedCalls: 0,
    netInputBytes: 0, netOutputBytes: 0, commands: {}, errorCodes: {}, cpuUser: 0, cpuSys: 0, lanes: [],
  };
}

export class WorkerState implements ServerContext {
  readonly config: Config;
  readonly runId: string;
  readonly startedAt: number;
  readonly workerIndex: number;
  readonly clients = new Map<number, Client>();
  readonly store: LaneStore;
  /** the primary's sweeper reports expired keys only while a hook of some worker listens (told late when it stops) */
  readonly writeHook = new WriteHook(hookListening((listening) => this.port.postMessage({ type: 'hook', listening })));
  /** pub/sub, blocked-client wake-ups and keyspace events, process- and instance-wide (core/bus) */
  readonly bus: MessageBus;
  readonly blocking: BlockingWaits;
  readonly tracker: Tracker;
  /** --cache shared: this worker's writes to other instances' caches, theirs to ours (worker 0) */
  readonly sharedCache: SharedInvalidations | undefined;
  /** notify-keyspace-events: publishes the hook's events on the bus while on */
  private readonly notifier: KeyspaceNotifier;
  stats = emptyStats();
  /** record()'s cache of the last command's entry in stats.commands (cleared with the stats) */
  private lastSpec: CommandSpec | undefined = undefined;
  private lastSpecStats: CommandStats | undefined = undefined;
  outputLimit: OutputLimit;
  /** client-output-buffer-limit's pubsub class: clients holding a subscription */
  pubsubLimit: OutputLimit;
  private readonly rpc: Rpc;
  /** this worker's copy of the ACL users, kept equal to the primary's (core/acl/registry.ts) */
  readonly acl: UserRegistry;
  readonly aclLog = new AclLog();
  /** this worker's TLS context for connections from the tls-port listener */
  readonly tls: WorkerTls;
  private onStopped!: () => void;
  readonly stopped = new Promise<void>((r) => (this.onStopped = r));

  constructor(task: ServeTask, readonly commands: CommandTable, private readonly port: MessagePort) {
    this.config = new Config(task.config);
    this.runId = task.runId;
    this.startedAt = task.startedAt;
    this.workerIndex = task.workerIndex;
    this.outputLimit = this.config.outputLimit();
    this.pubsubLimit = this.config.outputLimit('pubsub');
    this.store = new LaneStore(this.config.int('pg-connections'), {
      url: task.storage.url,
      startupOptions: task.storage.startupOptions,
      maxCommands: () => this.config.int('batch-max-commands'),
      maxBytes: () => this.config.int('batch-max-bytes'),
      batchTransaction: () => this.config.bool('batch-transaction'),
      pipelineMin: () => this.config.int('batch-pipeline-min'),
      gatherMs: () => this.config.int('batch-gather-ms'),
      laneSpill: () => this.config.int('lane-spill'),
      scriptConnections: this.config.int('script-connections'),
      scriptBatchMs: () => this.config.int('script-batch-ms'),
      log: (line) => this.log(line),
      lost: () => this.store.cache?.table.bumpEpoch(),
    });
    if (task.laneRings !== undefined) this.store.shareLanes(task.laneRings, this.workerIndex);
    this.tls = new WorkerTls(this.config, (line) => this.log(line), task.tlsTicketKeys);
    this.acl = new UserRegistry(new AclCommandIndex(commands.all()));
    this.acl.apply({ op: 'load', lines: task.acl });
    this.store.cache = startReadCache(task, this.config, this.writeHook);
    this.rpc = new Rpc(port, (op, args) => this.onRequest(op, args));
    this.bus = new MessageBus(port, this.workerIndex, busChannelName(this.runId));
    this.blocking = new BlockingWaits(this.bus, this.writeHook, (n) => { this.stats.blockedClients = n; });
    this.notifier = new KeyspaceNotifier(this.writeHook, this.bus, this.workerIndex);
    this.notifier.configure(parseNotifyFlags(this.config.str('notify-keyspace-events')) ?? 0);
    if (this.store.cache !== undefined && this.config.str('cache') === 'shared') {
      this.sharedCache = new SharedInvalidations(this.store.cache.table, this.bus);
      this.writeHook.listen(this.sharedCache.listener());
      if (this.workerIndex === 0) {
        this.sharedCache.subscribe().catch((e: Error) => this.log(`read cache (shared): subscribing failed: ${e.message}`));
      }
    }
    this.tracker = new Tracker(this.writeHook, this.bus, this.clients, this.workerIndex, this.runId,
      this.config.int('tracking-table-max-keys'), this.config.int('workers'));
    port.on('message', (msg: PrimaryToWorker) => this.onMessage(msg));
  }

  log(line: string): void {
    if (this.config.str('loglevel') !== 'nothing') process.stderr.write(`postresp worker ${this.workerIndex}: ${line}\n`);
  }

  private onMessage(msg: PrimaryToWorker): void {
    if (this.rpc.handle(msg)) return;
    if (msg.type === 'bus') this.bus.onHubMessage(msg);
    else if (msg.type === 'conn') this.adopt(msg);
    else if (msg.type === 'expired') this.onExpired(msg);
  }

  /** The sweeper's deleted keys: views into the one buffer the message carried. */
  private onExpired(msg: ExpiredMessage): void {
    const keys: Buffer[] = [];
    let at = 0;
    for (const end of msg.ends) {
      keys.push(Buffer.from(msg.keys.buffer, msg.keys.byteOffset + at, end - at));
      at = end;
    }
    this.writeHook.expired(msg.dbs, keys);
  }

  private adopt(msg: ConnMessage): void {
    let client: Client;
    try {
      const tls = msg.tls ? this.tls.context() : undefined;
      if (msg.tls && tls === undefined) {
        // no context could be built: closing beats serving the TLS port in plain text
        native.closeFd(msg.fd);
        this.port.postMessage({ type: 'closed', id: msg.id });
        return;
      }
      client = new Client(msg.id, msg.fd, msg.unix, this, this, tls);
    } catch (e) {
      this.log(`cannot adopt descriptor ${msg.fd}: ${(e as Error).message}`);
      this.port.postMessage({ type: 'closed', id: msg.id });
      return;
    }
    this.clients.set(msg.id, client);
    this.stats.connectedClients = this.clients.size;
  }

  onClientClosed(client: Client): void {
    unwatchAll(client);
    if (this.clients.delete(client.id)) {
      this.stats.connectedClients = this.clients.size;
      try { this.port.postMessage({ type: 'closed', id: client.id }); } catch { /* primary gone */ }
    }
  }

  private applyConfig(name: string, text: string): void {
    this.config.set(name, text);
    if (isTlsOption(name)) this.tls.changed();
    if (name === 'requirepass') this.acl.apply({ op: 'requirepass', value: this.config.str(name) });
    if (name === 'notify-keyspace-events') this.notifier.configure(parseNotifyFlags(this.config.str(name)) ?? 0);
    if (name === 'client-output-buffer-limit') {
      this.outputLimit = this.config.outputLimit();
      this.pubsubLimit = this.config.outputLimit('pubsub');
    }
    if (name === 'tracking-table-max-keys') this.tracker.setLimit(this.config.int(name));
    if (name === 'cache-max-memory') this.store.cache?.resize(this.config.int('cache-max-memory'));
    for (const c of this.clients.values()) {
      if (name === 'proto-max-bulk-len') c.parser.limits.protoMaxBulkLen = this.config.int(name);
      else if (name === 'client-query-buffer-limit') c.parser.limits.clientQueryBufferLimit = this.config.int(name);
      else if (name === 'timeout' || name === 'tcp-keepalive') c.applyTimeouts();
      else if (name === 'requirepass') c.applyAuth();
    }
  }

  /** started: performance.now() when the command's bytes arrived, or -1 for an immediate command */
  record(spec: CommandSpec, started: number, result: Reply): void {
    const s = this.stats;
    s.totalCommands++;
    let c: CommandStats | undefined;
    // a pipeline runs one command many times: the keyed lookup by name was ~1% of PING's CPU
    if (spec === this.lastSpec) {
      c = this.lastSpecStats!;
    } else {
      c = s.commands[spec.name];
      if (c === undefined) c = s.commands[spec.name] = { calls: 0, usec: 0, rejected: 0, failed: 0, hist: newHistogram() };
      this.lastSpec = spec;
      this.lastSpecStats = c;
    }
    c.calls++;
    const usec = started < 0 ? 0 : (performance.now() - started) * 1000;
    c.usec += usec;
    recordLatency(c.hist, usec);
    if (result instanceof RespError) {
      c.failed++;
      s.failedCalls++;
      this.countError(result);
    }
  }

  countError(e: RespError): void {
    const sp = e.text.indexOf(' ');
    const code = sp > 0 ? e.text.slice(0, sp) : e.text;
    this.stats.errorCodes[code] = (this.stats.errorCodes[code] ?? 0) + 1;
  }

  private async onRequest(op: string, args: unknown): Promise<unknown> {
    switch (op) {
      case 'config':
        for (const [name, value] of args as [string, string][]) this.applyConfig(name, value);
        return true;
      case 'clients': {
        const out: [number, string][] = [];
        for (const c of this.clients.values()) if (matchesFilter(c, args as ClientFilter | undefined)) out.push([c.id, c.describe()]);
        return out;
      }
      case 'unblock': {
        const { id, error } = args as { id: number; error: boolean };
        return this.clients.get(id)?.blocked?.unblock(error) ? 1 : 0;
      }
      case 'kill': {
        let n = 0;
        for (const c of [...this.clients.values()]) {
          if (matchesFilter(c, args as ClientFilter)) { n++; c.destroy(); }
        }
        return n;
      }
      case 'acl': {
        // users deleted (DELUSER) or replaced (ACL LOAD): their clients close, after the reply
        // to the command that did it when it is one of them, as in Redis
        const gone = new Set(this.acl.apply(args as AclMutation));
        if (gone.size > 0) for (const c of this.clients.values()) if (gone.has(c.user)) c.finish();
        return true;
      }
      case 'acl-specs':
        // what ACL rules read of the command table, for the primary (core/primary/acl-host.ts)
        return aclSpecs(this.commands.all());
      case 'acl-log':
        return this.aclLog.entries;
      case 'acl-log-reset':
        this.aclLog.reset();
        return true;
      case 'stats':
        return { ...this.stats, tracking: this.tracker.stats, lanes: this.store.lanes.map((l) => l.snapshot()), scripts: { ...this.store.scripts.stats },
          bus: { directSent: this.bus.stats.directSent, directMissed: this.bus.stats.directMissed },
          cache: this.store.cache && { ...this.store.cache.snapshot(), enabled: this.store.cache.table.enabled, shared: this.sharedCache?.stats } };
      case 'reset-stats':
        this.clearStats();
        for (const l of this.store.lanes) l.resetStats();
        return true;
      case 'shutdown':
        return this.stop((args as { timeoutMs: number }).timeoutMs);
      default:
        throw new Error(`unknown request ${op}`);
    }
  }

  /** Finish what was read, flush, close every client (force after timeoutMs), end the task. */
  async stop(timeoutMs: number): Promise<boolean> {
    for (const c of this.clients.values()) c.finish();
    const deadline = Date.now() + timeoutMs;
    while (this.clients.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    for (const c of [...this.clients.values()]) c.destroy();
    await this.store.close();
    this.tracker.close();
    this.sharedCache?.close();
    this.bus.close();
    setImmediate(() => {
      this.port.close();
      this.onStopped();
    });
    return true;
  }

  // ServerContext, the cross-thread parts go through the primary
  hasClient(id: number): boolean {
    return this.clients.has(id);
  }
  clientList(filter?: ClientFilter): Promise<string[]> {
    return this.rpc.call<string[]>('client-list', filter);
  }
  killClients(filter: ClientFilter): Promise<number> {
    return this.rpc.call<number>('client-kill', filter);
  }
  unblockClient(id: number, error: boolean): Promise<number> {
    return this.rpc.call<number>('client-unblock', { id, error });
  }
  info(): Promise<InfoData> {
    return this.rpc.call<InfoData>('info');
  }
  /** ACL mutations and file operations go through the primary: Redis's error text, or null */
  aclRequest(m: AclMutation | { op: 'loadfile' } | { op: 'save' }): Promise<string | null> {
    return this.rpc.call<string | null>('acl', m);
  }
  aclLogGather(reset: boolean): Promise<unknown> {
    return this.rpc.call('acl-log', reset);
  }
  async configSet(pairs: [string, string][]): Promise<void> {
    for (const [name, value] of pairs) this.applyConfig(name, value);
    await this.rpc.call('config-set', pairs);
  }
  private clearStats(): void {
    this.stats = { ...emptyStats(), connectedClients: this.clients.size, blockedClients: this.blocking.blocked };
    this.lastSpec = undefined;
    this.lastSpecStats = undefined;
  }
  async resetStats(): Promise<void> {
    this.clearStats();
    await this.rpc.call('reset-stats');
  }
  async shutdown(): Promise<void> {
    await this.rpc.call('shutdown');
  }
  crash(): void {
    setImmediate(() => {
      throw new Error('DEBUG PANIC: worker thread stopped on request');
    });
  }
}
