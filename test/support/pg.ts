// Test helpers: every test file shares the one PostgreSQL that scripts/run-tests.ts started (or
// DATABASE_URL), and isolates itself in its own schema instead of its own server (a server start
// costs ~0.15–1.2 s and ~1 GB of address space; a schema costs ~5 ms).
import pg from 'pg';
import { scriptLockClass } from '../../core/engine/commands/scripting/functions';
import { quoteIdent } from '../../core/primary/postgres/schema';

let counter = 0;

export function testPgUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) {
    throw new Error('DATABASE_URL is not set: run the tests with `npm test` (or `node dist/scripts/run-tests.js`), ' +
      'which starts an embedded PostgreSQL, or export DATABASE_URL=postgres://… for an existing server');
  }
  return url;
}

// One client for the length of fn.
export async function withPg<T>(fn: (client: pg.Client) => Promise<T>, url: string = testPgUrl()): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// A new empty schema named <prefix>_<pid>_<n> (valid for --schema: lower-case, ≤ 63 bytes). A
// leftover from an earlier run that died with the same pid is dropped first.
export async function freshSchema(prefix: string): Promise<{ schema: string; drop(): Promise<void> }> {
  const base = prefix.toLowerCase().replace(/[^a-z0-9_]/g, '_').replace(/^[0-9]/, '_$&');
  const suffix = `_${process.pid}_${++counter}`;
  const schema = base.slice(0, 63 - suffix.length) + suffix;
  await withPg(async (c) => {
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.query(`CREATE SCHEMA "${schema}"`);
  });
  return {
    schema,
    drop: () => withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`))),
  };
}

/** Until a script call's transaction sits idle in Postgres (its Lua busy-waits between two redis.call). */
export async function scriptIdleInTransaction(schema: string): Promise<void> {
  // not another schema's calls (their transaction holds that schema's advisory-lock class:
  // scripting/functions.ts): other test files' scripts run on the same Postgres, and one of theirs
  // idle in transaction made a waiter here start before its holder (scripting-batch, a full run).
  // A call holding no class lock still counts: requiring ours missed a call once (fresh clone)
  await withPg(async (pg) => {
    for (let i = 0; i < 500; i++) {
      const r = await pg.query(`SELECT count(*)::int AS n FROM pg_stat_activity a
        WHERE a.application_name = 'postresp-script' AND a.state = 'idle in transaction'
          AND (a.pid IN (SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
                AND l.classid = $1::oid AND l.objsubid = 2)
            -- a call whose transaction took no class lock at all (no first statement, or not yet): it may be ours
            OR a.pid NOT IN (SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2))`,
        [scriptLockClass(quoteIdent(schema))]);
      if (r.rows[0].n > 0) return;
      await new Promise((res) => setTimeout(res, 10));
    }
    throw new Error('no script transaction seen');
  });
}
