// A fresh schema holding PostRESP's tables and functions, for tests that drive lanes or SQL
// directly (no server): what the primary's start does for a keyspace, in a schema of its own.
import { installFunctions } from '../../core/engine/commands/install-functions';
import { connectClient } from '../../core/primary/postgres/connect';
import { migrate } from '../../core/primary/postgres/migrations';
import { freshSchema, testPgUrl } from './pg';

export async function freshKeyspace(prefix: string): Promise<{ schema: string; drop: () => Promise<void> }> {
  const fresh = await freshSchema(prefix);
  await migrate(testPgUrl(), { schema: fresh.schema, storageMode: 'unlogged', convertStorageMode: false });
  const client = await connectClient(testPgUrl());
  try {
    await installFunctions(client, fresh.schema);
  } finally {
    await client.end();
  }
  return fresh;
}
