// The supervisor on a throwaway embedded server of its own (it gets killed): restart after
// kill -9 with an orphaned backend still busy in a statement, the attempt cap while the port is
// taken, and stop() while a restart is in progress. One data folder, one initdb (~1–4 s here).
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { withPg } from '../../../test/support/pg';
import { findOrphans } from './embedded-orphans';
import { readPidFile } from './embedded-pidfile';
import { SupervisedPostgres } from './embedded-supervisor';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (await ok()) return;
  throw new Error(`still not ${what} after ${ms / 1000} s`);
}

// A zombie (exited, not yet reaped: PID 1 in a container may never reap) counts as gone.
async function alive(pid: number): Promise<boolean> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat !== undefined) return !/^\d+ \(.*\) Z/.test(stat);
  try { process.kill(pid, 0); return true; } catch { return false; }
}

describe('SupervisedPostgres', { timeout: 120_000 }, () => {
  let tmp: string;
  let dataDir: string;
  let sup: SupervisedPostgres;
  const lines: string[] = [];
  let onLine: ((line: string) => void) | undefined;
  const logged = (re: RegExp) => lines.some((l) => re.test(l));
  // 2 attempts per 2 s: the cap test waits out one window, not a minute
  const kWindowMs = 2000;
  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'postresp-supervisor-test-'));
    dataDir = path.join(tmp, 'pg');
    // hot_standby off: the last test's standby never reports "ready" (a hot standby does)
    sup = await SupervisedPostgres.start({ dataDir, log: (l) => { lines.push(l); onLine?.(l); }, settings: { hot_standby: 'off' } }, { windowMs: kWindowMs, maxAttempts: 2, backoffMs: [0, 100] });
    await withPg((c) => c.query(`CREATE TABLE survives AS SELECT 'before the crash' AS v`), sup.current.url);
  });
  after(async () => {
    await sup?.stop();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('restarts a kill -9ed postmaster on the same port and socket, killing a backend still busy', async () => {
    const before = sup.current;
    // A CPU-bound statement never waits, so it never notices its postmaster died: measured, it
    // ran on until its statement_timeout and held the shared memory the restart needs.
    const busy = new pg.Client({ connectionString: before.url });
    busy.on('error', () => undefined);
    await busy.connect();
    await busy.query(`SET statement_timeout = '60s'`);
    const running = busy.query('SELECT count(*) FROM generate_series(1, 1e10)').then(() => 'finished', (e: Error) => e.message);
    await until('running', async () => (await withPg((c) => c.query(
      `SELECT 1 FROM pg_stat_activity WHERE query LIKE '%generate_series(1, 1e10)%' AND state = 'active' AND pid <> pg_backend_pid()`),
    before.url)).rowCount === 1);
    try {
      process.kill(before.pid, 'SIGKILL');
      await until('restarted', () => sup.restarts === 1 && sup.state === 'up');
    } finally {
      busy.end().catch(() => undefined); // a test failing here must not hang on this socket
    }
    const now = sup.current;
    assert.notEqual(now.pid, before.pid);
    assert.equal(now.port, before.port);
    assert.equal(now.localUrl, before.localUrl);
    assert.equal(sup.failures, 0, lines.join('\n'));
    assert.ok(logged(/killed \d+ leftover process\(es\) of the previous postmaster/), lines.join('\n'));
    assert.equal(await running, 'Connection terminated unexpectedly');
    const rows = await withPg(async (c) => (await c.query('SELECT v FROM survives')).rows, now.localUrl);
    assert.deepEqual(rows, [{ v: 'before the crash' }]);
  });

  it('while the port is taken: at most maxAttempts per window, then back once it is free', async () => {
    await sleep(kWindowMs); // the first test's attempt leaves the window
    const before = sup.current;
    const thief = net.createServer();
    lines.length = 0;
    // synchronous, before the first attempt (delay 0 is still a later timer): the port is ours
    // and freed at the cap, in the same tick as the log line: freed after polling for the line, a
    // loaded machine (load average 15-20) let the next window open first, and its attempts failed too
    onLine = (l) => {
      if (l.startsWith('embedded PostgreSQL died')) thief.listen(before.port, '127.0.0.1');
      if (/restart attempts in the last .*the limit/.test(l)) thief.close();
    };
    try {
      process.kill(before.pid, 'SIGKILL');
      // polling keeps the event loop alive: the supervisor's child and timers are unref'd
      await until('at the cap', () => logged(/2 restart attempts in the last 2 s, the limit/));
      assert.equal(sup.failures, 2);
      assert.equal(sup.restarts, 1);
      assert.equal(sup.state, 'waiting');
      assert.ok(lines.some((l) => l.includes('restart failed (1 failed so far)') && /could not bind|Address already in use/.test(l)),
        lines.join('\n'));
    } finally {
      onLine = undefined;
      await new Promise((r) => thief.close(r));
    }
    await until('restarted', () => sup.restarts === 2 && sup.state === 'up');
    assert.equal(sup.failures, 2); // nothing tried between the cap and the end of the window
    assert.equal(sup.current.port, before.port);
  });

  it('stop() during a restart leaves no postmaster behind', { timeout: 30_000 }, async () => {
    // standby.signal: the next start recovers as a standby that never reports "ready", so the
    // restart is still in progress, its postmaster running, when stop() comes
    await fs.writeFile(path.join(dataDir, 'standby.signal'), '');
    const before = sup.current;
    process.kill(before.pid, 'SIGKILL');
    let starting = 0;
    await until('starting a new postmaster', async () => {
      const info = await readPidFile(dataDir);
      starting = info !== undefined && info.pid !== before.pid && (await alive(info.pid)) ? info.pid : 0;
      return sup.state === 'starting' && starting !== 0;
    });
    await sup.stop();
    assert.equal(await alive(starting), false, `postmaster ${starting} outlived stop()`);
    assert.deepEqual(await findOrphans(dataDir), []);
    assert.equal(sup.state, 'stopped');
    await fs.rm(path.join(dataDir, 'standby.signal'));
  });
});
