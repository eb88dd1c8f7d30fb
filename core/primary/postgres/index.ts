// The PostgreSQL layer as the rest of PostRESP sees it (docs/postgres.md).
export { checkConnection, connectClient, describePgUrl, mapPgError, resolvePgTarget } from './connect';
export type { PgTarget, PgTargetSource } from './connect';
export { startEmbeddedPostgres } from './embedded';
export type { EmbeddedOptions, EmbeddedPostgres } from './embedded';
export { kSupervisorDefaults, SupervisedPostgres } from './embedded-supervisor';
export type { SupervisorOptions, SupervisorState } from './embedded-supervisor';
export { PostgresSetupError } from './errors';
export type { PgErrorCode } from './errors';
export { kMigrations, kSchemaVersion, migrate } from './migrations';
export type { MigrateOptions, MigrateResult } from './migrations';
export { kDefaultSchema, kStorageModes, quoteIdent, sessionSettings, startupOptions, validateSchemaName,
  validateStorageMode } from './schema';
export type { StorageMode } from './schema';
