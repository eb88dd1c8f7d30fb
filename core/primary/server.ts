/**
 * The primary thread: listens, accepts with pauseOnConnect, dup()s each descriptor and hands it
 * to the worker with the fewest connections; answers the workers' cross-thread requests
 * (CLIENT LIST/KILL, INFO, CONFIG SET, SHUTDOWN); shuts down gracefully.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import type { BusHub } from '../bus/hub';
import type { Config } from '../config/config';
import { isUnavailable, parseBind } from './bind';
import { PostrespError, kErrListen } from '../errors';
import type { ConnMessage, WorkerStats } from '../messages';
import { loadNative, type NativeAddon } from '../native';
import { WorkerPool } from './pool';
import type { ExpiredSink } from './sweeper';
import { AclHost, type AclRequest } from './acl-host';
import { AclStore } from './acl-store';
import type { AclMutation } from '../acl/registry';
import type { AclSpec } from '../acl/command-index';
import type { PgLink } from '../bus/pg-link';
import { mergeLogs, type AclLogEntry } from '../acl/log';
import { kProtectedModeDenied, protectedModeDenies } from './protected-mode';

const kMaxClientsReply = '-ERR max number of clients reached\r\n';

export interface PrimaryStats {
  totalConnectionsReceived: number;
  rejectedConnections: number;
}

export class PrimaryServer {
  readonly runId = crypto.randomBytes(20).toString('hex');
  readonly startedAt = Date.now();
  readonly stats: PrimaryStats = { totalConnectionsReceived: 0, rejectedConnections: 0 };
  private readonly listeners: net.Server[] = [];
  private readonly native: NativeAddon = loadNative();
  private pool!: WorkerPool;
  private acl!: AclHost;
  private nextClientId = 1;
  private stopping: Promise<void> | undefined;
  tcpPort = 0;
  /** INFO sections the storage adds (persistence, keyspace) */
  infoSections: (() => Promise<Record<string, [string, string | number][]>>) | undefined;
  /** the message bus's primary end, set before start() */
  bus: BusHub | undefined;
  /** the bus's link to other instances, set before start(): ACL users are kept and followed there */
  busLink: PgLink | undefined;
  /** called after clients are closed, before exit (stops storage) */
  onStopped: Array<() => Promise<void>> = [];
  /** the sweeper's expired keys, to the workers whose write hook listens (once the pool started) */
  readonly expired: ExpiredSink = {
    listening: () => this.pool?.expired.listening() ?? false,
    report: (dbs, keys) => this.pool?.expired.report(dbs, keys),
  };

  constructor(readonly config: Config, private readonly log: (line: string) => void,
    private readonly extra: Record<string, unknown> = {}) {}

  async start(): Promise<string> {
    const link = this.busLink;
    this.acl = new AclHost(this.config, {
      broadcast: async (m: AclMutation) => void (await this.pool.gather('acl', m)),
      log: this.log,
      store: link && new AclStore(link),
    });
    this.pool = new WorkerPool(this.config, { runId: this.runId, startedAt: this.startedAt, tcpPort: 0,
      tlsTicketKeys: crypto.randomBytes(48), ...this.extra } as never, {
      handler: (op, args) => this.onWorkerRequest(op, args),
      log: this.log,
      bus: this.bus,
      // a worker started before the users are known (below) starts with the default user alone
      aclLines: () => this.acl.registry?.list() ?? [],
    });
    // the users before the first client: the workers (which hold the command table the primary
    // may not import) say what ACL rules read of it, then the users are read and handed to them
    await this.pool.start();
    const [specs] = await this.pool.gather<AclSpec[]>('acl-specs');
    if (specs === undefined) throw new Error('no worker answered at start');
    // following from before the first read: a change committed just after it is not missed
    // (start() is the first in AclHost's queue, so what follows waits for it)
    if (link !== undefined) link.onAcl = (version) => this.acl.follow(version);
    await this.acl.start(specs);
    await this.pool.gather('acl', { op: 'load', lines: this.acl.registry.list() } satisfies AclMutation);
    return this.listen();
  }

  private async listen(): Promise<string> {
    const unixsocket = this.config.str('unixsocket');
    const port = this.config.int('port');
    const tlsPort = this.config.int('tls-port');
    let ready = '';
    if (tlsPort !== 0) {
      for (const b of parseBind(this.config.str('bind'))) {
        const addr = await this.listenOn({ host: b.host, port: tlsPort, ipv6Only: b.ipv6Only }, `${b.text}:${tlsPort}`, b.optional, true);
        if (addr !== null) ready ||= `Ready to accept connections tls ${b.host}:${tlsPort}`;
      }
    }
    // port 0 beside a Unix socket or a TLS port: no plain TCP listener, as in Redis
    if (!((unixsocket !== '' || tlsPort !== 0) && port === 0)) {
      let plain = '';
      for (const b of parseBind(this.config.str('bind'))) {
        const addr = await this.listenOn({ host: b.host, port: this.tcpPort || port, ipv6Only: b.ipv6Only }, `${b.text}:${port}`, b.optional);
        if (addr === null) continue;
        this.tcpPort = (addr as net.AddressInfo).port;
        plain ||= `Ready to accept connections tcp ${b.host}:${this.tcpPort}`;
      }
      ready = plain || ready;
    }
    if (ready === '' && unixsocket === '') {
      throw new PostrespError(kErrListen, `none of the --bind addresses '${this.config.str('bind')}' is available on this host`);
    }
    if (unixsocket !== '') {
      try { fs.unlinkSync(unixsocket); } catch { /* no stale socket */ }
      await this.listenOn({ path: unixsocket }, unixsocket);
      const perm = this.config.int('unixsocketperm');
      if (perm !== 0) fs.chmodSync(unixsocket, perm);
      ready ||= `Ready to accept connections unix ${unixsocket}`;
    }
    return ready;
  }

  /** null: an optional (`-`) address this host does not have, skipped like Redis with a warning */
  private listenOn(options: net.ListenOptions, label: string, optional = false, tls = false): Promise<net.AddressInfo | string | null> {
    const unix = options.path !== undefined;
    const server = net.createServer({ pauseOnConnect: true }, (s) => this.accept(s, unix, tls));
    // Redis's default backlog (tcp-backlog 511)
    server.maxConnections = Infinity;
    return new Promise((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) => {
        if (optional && isUnavailable(e.code)) {
          this.log(`warning: could not listen on ${label}: ${e.code}; skipped (optional address)`);
          resolve(null);
          return;
        }
        reject(new PostrespError(kErrListen, `cannot listen on ${label}: ${e.code ?? e.message}; choose another --port/--bind/--unixsocket`));
      });
      server.listen({ ...options, backlog: 511 }, () => {
        this.listeners.push(server);
        resolve(server.address());
      });
    });
  }

  private accept(socket: net.Socket, unix: boolean, tls: boolean): void {
    this.stats.totalConnectionsReceived++;
    if (this.stopping !== undefined) { socket.destroy(); return; }
    if (this.pool.clientCount >= this.config.int('maxclients')) {
      this.stats.rejectedConnections++;
      // the TLS port's clients expect a handshake, not plain text: they only see the close
      if (tls) socket.destroy(); else socket.end(kMaxClientsReply);
      return;
    }
    const c = this.config;
    if (protectedModeDenies({ protectedMode: c.bool('protected-mode'), requirepass: this.acl.registry.defaultNeedsAuth ? 'set' : '', unix, address: socket.remoteAddress })) {
      this.stats.rejectedConnections++;
      if (tls) socket.destroy(); else socket.end(kProtectedModeDenied);
      return;
    }
    const slot = this.pool.pick();
    const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
    if (slot === undefined || fd === undefined || fd < 0) {
      this.stats.rejectedConnections++;
      socket.destroy();
      return;
    }
    let copy: number;
    try {
      copy = this.native.dupFd(fd);
    } catch (e) {
      this.log(`accept: ${(e as Error).message}`);
      socket.destroy();
      return;
    }
    socket.destroy();
    const msg: ConnMessage = { type: 'conn', id: this.nextClientId++, fd: copy, unix, tls };
    this.pool.handOff(slot, msg);
  }

  private async onWorkerRequest(op: string, args: unknown): Promise<unknown> {
    switch (op) {
      case 'acl-log': {
        if (args === true) { await this.pool.gather('acl-log-reset'); return []; }
        return mergeLogs(await this.pool.gather<AclLogEntry[]>('acl-log'));
      }
      case 'client-list': {
        const parts = await this.pool.gather<[number, string][]>('clients', args);
        return parts.flat().sort((a, b) => a[0] - b[0]).map((e) => e[1]);
      }
      case 'client-kill': {
        const counts = await this.pool.gather<number>('kill', args);
        return counts.reduce((a, b) => a + b, 0);
      }
      case 'client-unblock': {
        const counts = await this.pool.gather<number>('unblock', args);
        return counts.reduce((a, b) => a + b, 0);
      }
      case 'info': {
        const [workers, sections] = await Promise.all([
          this.pool.stats(),
          this.infoSections?.().catch((e: Error) => ({ persistence: [['postresp_storage_error', e.message.replace(/\s+/g, ' ')]] })),
        ]);
        return { workers, primary: this.infoData(), sections };
      }
      case 'acl': {
        const r = await this.acl.request(args as AclRequest);
        return r.error ?? null;
      }
      case 'config-set': {
        for (const [name, value] of args as [string, string][]) {
          if (name === 'requirepass') {
            // the default user is shared by the instances on the schema: its password too
            const r = await this.acl.request({ op: 'requirepass', value });
            if (r.error !== undefined) this.log(`CONFIG SET requirepass: ${r.error}`);
          }
          this.config.set(name, value);
        }
        // every worker applies the values before the caller's reply: a client on another worker
        // that reads or relies on them right after the reply sees them (a one-way broadcast
        // could reach that worker after the reply reached the caller)
        await this.pool.gather('config', (args as [string, string][]).map(([name]) => [name, String(this.config.get(name))]));
        return true;
      }
      case 'reset-stats': {
        // Redis's RESETSTAT also zeroes total_connections_received and rejected_connections
        this.stats.totalConnectionsReceived = 0;
        this.stats.rejectedConnections = 0;
        await this.pool.gather('reset-stats');
        return true;
      }
      case 'shutdown':
        setImmediate(() => void this.shutdown('SHUTDOWN command'));
        return true;
      default:
        throw new Error(`unknown request ${op}`);
    }
  }

  infoData(): Record<string, number> {
    return {
      totalConnectionsReceived: this.stats.totalConnectionsReceived,
      rejectedConnections: this.stats.rejectedConnections,
      connectedClients: this.pool.clientCount,
      workers: this.pool.slots.length,
      workerRestarts: this.pool.slots.reduce((a, s) => a + s.restarts, 0),
      tcpPort: this.tcpPort,
    };
  }

  workerStats(): Promise<WorkerStats[]> {
    return this.pool.stats();
  }

  /** Stop accepting, let workers flush and close, stop storage. Idempotent. */
  shutdown(reason: string): Promise<void> {
    if (this.stopping) return this.stopping;
    this.log(`shutting down (${reason})`);
    this.stopping = (async () => {
      for (const l of this.listeners) l.close();
      const timeoutMs = this.config.int('shutdown-timeout') * 1000;
      await this.pool.stop(timeoutMs);
      for (const f of this.onStopped) await f().catch((e: Error) => this.log(`stop: ${e.message}`));
      const unixsocket = this.config.str('unixsocket');
      if (unixsocket) try { fs.unlinkSync(unixsocket); } catch { /* already gone */ }
    })();
    return this.stopping;
  }
}
