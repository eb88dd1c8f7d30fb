// Names and per-session settings shared by everything that talks to the keyspace tables.
import { PostgresSetupError } from './errors';

export type StorageMode = 'unlogged' | 'logged-async' | 'logged';
export const kStorageModes: readonly StorageMode[] = ['unlogged', 'logged-async', 'logged'];
export const kDefaultSchema = 'postresp';

// Lower-case only, so the quoted identifier is the same name psql users type unquoted; 63 bytes
// is Postgres's NAMEDATALEN - 1 (longer names are silently truncated, two could collide).
const kSchemaName = /^[a-z_][a-z0-9_]{0,62}$/;

export function validateSchemaName(name: string): string {
  if (!kSchemaName.test(name)) {
    throw new PostgresSetupError('POSTRESP_ERR_SCHEMA_NAME', `invalid --schema ${JSON.stringify(name)}: use 1–63 ` +
      'characters a-z, 0-9 and _, not starting with a digit');
  }
  return name;
}

// Validated names need no escaping; the quotes still stop keywords ("user", "order") from parsing.
export function quoteIdent(name: string): string {
  return `"${validateSchemaName(name)}"`;
}

export function validateStorageMode(mode: string): StorageMode {
  if (!(kStorageModes as readonly string[]).includes(mode)) {
    throw new PostgresSetupError('POSTRESP_ERR_STORAGE_MODE', `unknown --storage-mode ${JSON.stringify(mode)}: ` +
      `use one of ${kStorageModes.join(', ')}`);
  }
  return mode as StorageMode;
}

// Statements every lane runs right after connecting, in order.
//   logged        synchronous_commit = on: a write is acknowledged after its commit record is
//                 flushed; batches share the flush (group commit), so this is one fsync per batch.
//   logged-async  synchronous_commit = off: acknowledged before the flush; the walwriter flushes
//                 every wal_writer_delay (20 ms embedded) → ~60 ms of acknowledged writes at risk.
//   unlogged      off. UNLOGGED tables write no WAL, and Postgres already commits a transaction
//                 that wrote none without waiting for a flush (xact.c RecordTransactionCommit),
//                 so this changes nothing for the data tables; it makes the contract explicit and
//                 keeps incidental WAL (HOT pruning, a logged helper table) from ever adding an
//                 fsync to a reply whose data is lost on a crash anyway.
// search_path lets statements name tables unqualified. jit = off: a large batched statement on an
// external server could cross jit_above_cost and spend 10–100 ms compiling.
// plan_cache_mode = force_generic_plan (lanes only): every lane statement is prepared with array
// parameters whose plan never depends on their values; custom plans re-plan each execution (the
// first five always, and for good when the planner prices them lower): seed-config GET cost
// Postgres 39 µs of CPU per request with generic plans vs 51 without (docs/BENCHMARKS.md).
// The same values can go in the startup packet instead (libpq `options`), see startupOptions.
// enable_seqscan = off, enable_sort = off (PostRESP's connections, startupOptions): every
// statement reaches its rows by a key, and a plan cached while the statistics said "one row" (a
// converted or emptied table, a key missing from the sample) was a sequential scan of the table
// or a sort of the whole collection per command, kept until the next ANALYZE. Off makes them the
// last resort, taken only when no index path exists (docs/postgres.md "Plans";
// test/sql/hot-plans.test.ts checks every hot statement on empty, one-row, large and stale
// statistics).
export function sessionSettings(mode: StorageMode, schema: string = kDefaultSchema): string[] {
  const sync = mode === 'logged' ? 'on' : 'off';
  return [`SET search_path TO ${quoteIdent(schema)}`, `SET synchronous_commit TO ${sync}`, 'SET jit TO off'];
}

// The settings above as a libpq/node-postgres `options` value ("-c name=value ..."): applied
// during connection start-up, saving one round trip per new connection.
export function startupOptions(mode: StorageMode, schema: string = kDefaultSchema): string {
  validateSchemaName(schema);
  const sync = mode === 'logged' ? 'on' : 'off';
  return `-c search_path=${schema} -c synchronous_commit=${sync} -c jit=off -c plan_cache_mode=force_generic_plan ` +
    '-c enable_seqscan=off -c enable_sort=off';
}
