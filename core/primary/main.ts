#!/usr/bin/env node
/**
 * `postresp [config-file] [--option value …]` — starts the server (README lists every option).
 */
import { envName, loadConfig } from '../config/config';
import { kOptions } from '../config/options';
import { PostrespError, kErrConfig } from '../errors';
import { PrimaryServer } from './server';
import { buildTlsContext } from '../tls/secure-context';
import { provisionStorage } from './provision';
import { PrimaryPg } from './primary-pg';
import { KeyspaceInfo } from './keyspace-info';
import { Sweeper } from './sweeper';
import { EarlyAnalyze } from './early-analyze';
import { AdminHttp } from './admin-http';
import { mergeCommands, mergeErrors } from '../metrics/aggregate';
import { kPostrespVersion, kRedisVersion } from '../version';
import { BusHub } from '../bus/hub';
import { PgLink } from '../bus/pg-link';
import { loadLuaAddon } from '../engine/scripting/native-lua';
import { CacheLock } from './cache-lock';
import { CacheLease } from './cache-lease';
import { newVersionBuffer, VersionTable } from '../engine/cache/version-table';
import { newLaneRingBuffer } from '../engine/lane-ring';
import { newCacheArena } from '../engine/cache/arena';

function usage(): string {
  const rows = kOptions.filter((o) => !o.noop).map((o) =>
    `  --${o.name.padEnd(28)} ${o.description} (default: ${o.default === '' ? '""' : o.default}; env ${envName(o.name)})`);
  return `Usage: postresp [config-file] [--option value ...]\n\nOptions:\n${rows.join('\n')}\n` +
    '\nRedis parameters accepted for compatibility with no effect: see README.\n';
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) { process.stdout.write(usage()); return; }
  if (argv.includes('--version') || argv.includes('-v')) {
    process.stdout.write(`PostRESP v=${kPostrespVersion} redis-compat=${kRedisVersion} node=${process.versions.node}\n`);
    return;
  }
  const config = loadConfig({ argv, env: process.env });
  const log = (line: string) => {
    if (config.str('loglevel') !== 'nothing') process.stderr.write(`postresp: ${line}\n`);
  };
  // a TLS setup no worker could use stops the start before Postgres, with the reason Redis logs
  if (config.int('tls-port') !== 0) {
    try { buildTlsContext(config); } catch (e) {
      throw new PostrespError(kErrConfig, `Failed to configure TLS: ${(e as Error).message}`);
    }
  }
  const storage = await provisionStorage(config, log);
  // the read cache's version table, shared by the workers, and the lock that says whether it may be on
  const cacheMode = config.str('cache') as 'exclusive' | 'shared' | 'off';
  const cacheVersions = cacheMode === 'off' ? undefined : newVersionBuffer();
  // made once at the start's --cache-max-memory: CONFIG SET can lower the bound, not raise it past this
  const cacheArena = cacheMode === 'off' ? undefined : newCacheArena(config.int('cache-max-memory'));
  const cacheTable = new VersionTable(cacheVersions ?? newVersionBuffer(1));
  const cacheLock = new CacheLock({ url: storage.url, startupOptions: storage.startupOptions, schema: storage.schema,
    mode: cacheMode, table: cacheTable, log });
  const server = new PrimaryServer(config, log, {
    storage: { url: storage.url, startupOptions: storage.startupOptions, storageMode: storage.storageMode, schema: storage.schema },
    cacheVersions,
    // made here, not in a worker: a ring outlives the thread at either end of it
    laneRings: config.bool('shared-lanes') ? Array.from({ length: config.int('workers') }, (_, i) => (i === 0 ? undefined : newLaneRingBuffer())) : undefined,
    cacheArena,
  });
  const primaryPg = new PrimaryPg(storage.url, storage.startupOptions);
  const keyspace = new KeyspaceInfo(primaryPg);
  // active expiry on a connection of its own; POSTRESP_ACTIVE_EXPIRE=no turns it off (benchmarks)
  const sweeperPg = new PrimaryPg(storage.url, storage.startupOptions);
  const sweeper = new Sweeper(sweeperPg, { log, expired: server.expired });
  // statistics for tables that have none yet, before autovacuum's first pass (early-analyze.ts)
  const analyzePg = new PrimaryPg(storage.url, storage.startupOptions);
  const earlyAnalyze = new EarlyAnalyze(analyzePg, { schema: storage.schema, log });
  const embedded = storage.embedded; // supervised: restarted when it dies (docs/postgres.md)
  // the message bus: between workers in the hub, between instances on one LISTEN connection
  const busLink = new PgLink({ url: storage.url, startupOptions: storage.startupOptions, schema: storage.schema,
    instance: server.runId.slice(0, 16), log });
  // another instance's SCRIPT/FUNCTION KILL: the engine's running list is process-wide, so the
  // primary stops the calls of every worker here (the addon is loaded on the first one)
  const killScripts = (kind: 'script' | 'function'): void => {
    try {
      loadLuaAddon().kill(kind === 'function');
    } catch (e) {
      log(`${kind} kill from another instance: ${(e as Error).message}`);
    }
  };
  server.bus = new BusHub({ log, killScripts }, busLink);
  // --cache shared: on while every other instance's writes are known to arrive (cache-lease.ts)
  const cacheLease = cacheMode === 'shared' ? new CacheLease({ link: busLink, lock: cacheLock, table: cacheTable, log }) : undefined;
  server.busLink = busLink;
  server.infoSections = async () => {
    const persistence: [string, string | number][] = [['postresp_storage_mode', storage.storageMode],
      ['postresp_schema', storage.schema], ['postresp_postgres', storage.source.replace(/\s+/g, ' ')],
      ['postresp_postgres_version', storage.serverVersion]];
    if (embedded) persistence.push(['postresp_postgres_restarts', embedded.restarts], ['postresp_postgres_restart_failures', embedded.failures]);
    // Postgres down: INFO still answers, with the restart counts and why there is no keyspace
    const counts = await keyspace.keyspace().catch((e: Error) => {
      persistence.push(['postresp_storage_error', e.message.replace(/\s+/g, ' ')]);
      return [];
    });
    // a push's waits for the clients it served on other instances, and those given up after 1 s (docs/messaging.md)
    const stats: [string, number][] = [['expired_keys', sweeper.deleted], ['postresp_bus_served_waits', busLink.stats.servedWaits],
      ['postresp_bus_served_timeouts', busLink.stats.servedTimeouts]];
    return { server: [['config_file', config.file ?? '']], persistence, keyspace: counts, stats };
  };
  // after the workers closed their clients and lanes: stop the embedded Postgres, then exit
  server.onStopped.push(async () => {
    cacheLease?.stop();
    server.bus?.close();
    await busLink.close();
    await cacheLock.close();
    await sweeper.stop();
    await sweeperPg.close();
    await earlyAnalyze.stop();
    await analyzePg.close();
    await primaryPg.close();
    await storage.embedded?.stop();
  });
  const stop = (reason: string) => {
    server.shutdown(reason).then(() => process.exit(0), (e: Error) => {
      log(`shutdown failed: ${e.message}`);
      process.exit(1);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  let ready: string;
  try {
    await busLink.start();
    await cacheLock.start();
    ready = await server.start();
    cacheLease?.start();
  } catch (e) {
    await storage.embedded?.stop().catch(() => undefined);
    throw e;
  }
  if (process.env.POSTRESP_ACTIVE_EXPIRE !== 'no') sweeper.start();
  earlyAnalyze.start();
  const httpPort = config.int('http-port');
  if (httpPort !== 0) {
    const http = new AdminHttp({
      workers: () => server.workerStats(),
      primary: () => {
        const d = server.infoData();
        return { connectedClients: d.connectedClients, totalConnectionsReceived: d.totalConnectionsReceived,
          rejectedConnections: d.rejectedConnections, workerRestarts: d.workerRestarts,
          uptimeSeconds: Math.floor((Date.now() - server.startedAt) / 1000), sweeperDeleted: sweeper.deleted,
          embeddedPg: embedded && { up: embedded.state === 'up', restarts: embedded.restarts, failures: embedded.failures },
          bus: busLink.stats };
      },
      pgAlive: () => Promise.race([
        primaryPg.query('SELECT 1').then(() => true, () => false),
        new Promise<boolean>((r) => setTimeout(() => r(false), 1000).unref()),
      ]),
      info: async () => {
        const workers = await server.workerStats();
        return { server: server.infoData(), storage: { mode: storage.storageMode, schema: storage.schema },
          keyspace: Object.fromEntries(await keyspace.keyspace().catch(() => [])),
          commands: Object.fromEntries([...mergeCommands(workers)].map(([k, c]) => [k, { calls: c.calls, usec: Math.round(c.usec), failed: c.failed }])),
          errors: Object.fromEntries(mergeErrors(workers)) };
      },
    });
    if (config.bool('http-tls') && (config.str('tls-cert-file') === '' || config.str('tls-key-file') === '')) {
      throw new PostrespError(kErrConfig, '--http-tls needs --tls-cert-file and --tls-key-file');
    }
    const tls = config.bool('http-tls')
      ? { cert: config.str('tls-cert-file'), key: config.str('tls-key-file'), passphrase: config.str('tls-key-file-pass') } : undefined;
    const port = await http.listen(config.str('http-bind'), httpPort, tls);
    log(`admin HTTP on http${tls ? 's' : ''}://${config.str('http-bind')}:${port}/metrics`);
    server.onStopped.unshift(async () => http.close());
  }
  // SHUTDOWN from a client goes through server.shutdown too; exit once it is done
  server.onStopped.push(async () => { setImmediate(() => process.exit(0)); });
  process.stdout.write(`${ready}\n`);
}

main().catch((e: unknown) => {
  if (e instanceof PostrespError) process.stderr.write(`postresp: ${e.message} [${e.code}]\n`);
  else process.stderr.write(`postresp: fatal: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
