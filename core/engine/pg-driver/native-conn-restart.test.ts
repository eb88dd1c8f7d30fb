// NativePgConnection when Postgres itself goes away: a throwaway embedded server of its own, stopped
// and restarted under a full pipeline, then crashed (a backend killed with SIGKILL makes the
// postmaster reset every session). Nothing may hang; every pending statement must fail.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startEmbeddedPostgres, EmbeddedPostgres } from '../../primary/postgres/embedded';
import { PgConnectionError } from './errors';
import { NativePgConnection } from './native-conn';

describe('NativePgConnection across a Postgres restart', { timeout: 120_000 }, () => {
  let dir: string;
  let server: EmbeddedPostgres;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'postresp-driver-restart-'));
    await fs.chmod(dir, 0o755); // as root, the data folder's owner (postgres) must reach it
    server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg') });
  });
  after(async () => {
    await server?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** A pipeline stuck behind pg_sleep: 1 + n statements in flight when the server goes away. */
  function loadPipeline(conn: NativePgConnection, n: number) {
    const closed = new Promise<Error | undefined>((resolve) => (conn.onClose = resolve));
    const pending = [conn.query('SELECT pg_sleep(30)')];
    for (let i = 0; i < n; i++) pending.push(conn.query('SELECT $1::int4', [i]));
    conn.sync();
    return { closed, settled: Promise.allSettled(pending) };
  }

  async function assertAllFailed(load: ReturnType<typeof loadPipeline>, n: number) {
    const results = await load.settled;
    assert.equal(results.length, n + 1);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      const err = (r as PromiseRejectedResult).reason;
      assert.ok(err instanceof PgConnectionError, String(err));
      assert.equal(err.code, 'POSTRESP_ERR_PG_CONNECTION');
    }
    assert.ok((await load.closed) instanceof PgConnectionError);
  }

  async function connectWhenReady(url: string): Promise<NativePgConnection> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await NativePgConnection.connect(url, { connectTimeoutMs: 2000 });
      } catch (err) {
        // 57P03 "the database system is in recovery mode" while it restarts after a crash
        if (attempt > 100) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  test('stop and restart under a 2,000-statement pipeline', async () => {
    const conn = await NativePgConnection.connect(server.url);
    const load = loadPipeline(conn, 2000);
    await new Promise((r) => setTimeout(r, 100));
    const { port, url } = server;
    await server.stop(); // fast shutdown: FATAL 57P01 to every session, then exit
    await assertAllFailed(load, 2000);
    await assert.rejects(NativePgConnection.connect(url, { connectTimeoutMs: 2000 }), PgConnectionError);
    server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port });
    const again = await connectWhenReady(server.url);
    assert.equal((await again.query('SELECT 42::int4')).int(0, 0), 42);
    await again.close();
  });

  test('a crashed backend resets every session: pending statements fail, reconnect works', async () => {
    const conn = await NativePgConnection.connect(server.url);
    const other = await NativePgConnection.connect(server.url);
    const load = loadPipeline(conn, 500);
    await new Promise((r) => setTimeout(r, 100));
    process.kill(other.backendPid, 'SIGKILL'); // postmaster: crash, terminate all, recover
    await assertAllFailed(load, 500);
    const again = await connectWhenReady(server.url);
    assert.equal((await again.query('SELECT 43::int4')).int(0, 0), 43);
    await Promise.all([again.close(), other.close()]);
  });
});
