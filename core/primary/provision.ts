/**
 * Start-up of the keyspace: pick the Postgres (flag, DATABASE_URL, PG* variables, or the embedded
 * one, supervised: restarted when it dies), check it answers, run migrations, install the
 * server-side functions.
 */
import path from 'node:path';
import type { Config } from '../config/config';
import { checkConnection, connectClient, resolvePgTarget } from './postgres/connect';
import { SupervisedPostgres } from './postgres/embedded-supervisor';
import { migrate } from './postgres/migrations';
import { applyPasswordFile } from './postgres/password-file';
import { startupOptions, type StorageMode } from './postgres/schema';
import { installFunctions } from '../engine/commands/install-functions';

export interface Provisioned {
  url: string;
  schema: string;
  storageMode: StorageMode;
  startupOptions: string;
  source: string;
  embedded: SupervisedPostgres | undefined; // undefined for a server we did not start
  serverVersion: string;
}

export async function provisionStorage(config: Config, log: (line: string) => void): Promise<Provisioned> {
  applyPasswordFile(config.str('pg-password-file'));
  const target = resolvePgTarget(config.str('pg-url') || undefined);
  let embedded: SupervisedPostgres | undefined;
  let url: string;
  let source: string;
  if (target) {
    url = target.url;
    source = target.source;
  } else {
    const dataDir = path.resolve(config.str('data-dir'));
    log(`no Postgres configured: starting the embedded PostgreSQL in ${dataDir}`);
    embedded = await SupervisedPostgres.start({ dataDir, log });
    const pg = embedded.current;
    url = pg.localUrl;
    source = `embedded (${dataDir}, port ${pg.port}${pg.socketDir ? ', Unix socket' : ''})`;
  }
  try {
    const { serverVersion } = await checkConnection(url);
    const schema = config.str('schema');
    const storageMode = config.str('storage-mode') as StorageMode;
    const result = await migrate(url, { schema, storageMode, convertStorageMode: config.bool('convert-storage-mode') });
    const client = await connectClient(url);
    try {
      await installFunctions(client, schema);
    } finally {
      await client.end();
    }
    log(`keyspace in schema ${schema} (${result.storageMode}, schema v${result.schemaVersion}) on ${source}`);
    return { url, schema, storageMode, startupOptions: startupOptions(storageMode, schema), source, embedded, serverVersion };
  } catch (e) {
    await embedded?.stop().catch(() => undefined);
    throw e;
  }
}
