// Each start costs ~0.15 s warm and ~1.2 s cold here, so this file keeps to one data folder and
// four starts; every other test file shares the server scripts/run-tests.ts started.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { withPg } from '../../../test/support/pg';
import { NativePgConnection } from '../../engine/pg-driver/native-conn';
import { socketDirFor, startEmbeddedPostgres } from './embedded';
import { recoverySyncMethod } from './embedded-settings';
import { PostgresSetupError } from './errors';

// A zombie (exited, not yet reaped: PID 1 in a container may never reap) counts as gone.
async function alive(pid: number): Promise<boolean> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat !== undefined) return !/^\d+ \(.*\) Z/.test(stat);
  try { process.kill(pid, 0); return true; } catch { return false; }
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    if (!(await alive(pid))) return true;
  }
  return false;
}

describe('startEmbeddedPostgres', () => {
  let tmp: string;
  let dataDir: string;
  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'postresp-embedded-test-')); // 0700: as root, must be opened up
    dataDir = path.join(tmp, 'pg');
  });
  after(() => fs.rm(tmp, { recursive: true, force: true }));

  it('initialises a cluster, tuned, on 127.0.0.1 only', async () => {
    const lines: string[] = [];
    const pg = await startEmbeddedPostgres({ dataDir, log: (l) => lines.push(l) });
    try {
      assert.ok(pg.initdbMs !== undefined && pg.port > 0);
      assert.ok(lines.some((l) => l.startsWith('initialising a new PostgreSQL')));
      await withPg(async (c) => {
        const show = async (name: string) => (await c.query(`SHOW ${name}`)).rows[0][name];
        assert.equal(await show('listen_addresses'), '127.0.0.1');
        assert.equal(await show('fsync'), 'on');
        assert.equal(await show('synchronous_commit'), 'on');
        assert.equal(await show('max_connections'), '200');
        assert.equal(await show('wal_writer_delay'), '20ms');
        assert.equal(await show('recovery_init_sync_method'), recoverySyncMethod());
        await c.query('CREATE TABLE survives (v text)');
        await c.query(`INSERT INTO survives VALUES ('before restart')`);
        assert.equal((await c.query('SELECT host(inet_server_addr()) AS a')).rows[0].a, '127.0.0.1');
      }, pg.url);
      // localUrl is the Unix socket in the data folder, for node-postgres and for our libpq binding
      assert.equal(pg.socketDir, dataDir);
      assert.notEqual(pg.localUrl, pg.url);
      const viaSocket = 'SELECT inet_server_addr() IS NULL AS unix, current_setting(\'unix_socket_directories\') AS dir';
      assert.deepEqual((await withPg((c) => c.query(viaSocket), pg.localUrl)).rows, [{ unix: true, dir: dataDir }]);
      const conn = await NativePgConnection.connect(pg.localUrl);
      try {
        const res = await conn.query('SELECT (inet_server_addr() IS NULL)::text AS unix');
        assert.equal(String(res.value(0, 0)), 'true');
      } finally {
        await conn.close();
      }
      await assert.rejects(startEmbeddedPostgres({ dataDir }), (err: PostgresSetupError) => {
        assert.equal(err.code, 'POSTRESP_ERR_PG_DATADIR_IN_USE');
        assert.match(err.message, new RegExp(`in use by postmaster pid ${pg.pid} \\(port ${pg.port}\\)`));
        return true;
      });
    } finally {
      await pg.stop();
    }
    assert.equal(await alive(pg.pid), false);
    await pg.stop(); // idempotent
  });

  it('stops the server when its parent is killed -9 (pdeathsig), then restarts on the same data', async (t) => {
    if (process.platform !== 'linux' || spawnSync('setpriv', ['--version']).status !== 0) {
      t.skip('needs Linux and util-linux setpriv');
      return;
    }
    const script = `require(${JSON.stringify(path.join(__dirname, 'embedded.js'))})
      .startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)} })
      .then((pg) => { console.log(pg.pid); setInterval(() => {}, 1000); });`;
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d) => resolve(String(d)))));
    assert.ok(await alive(pid));
    parent.kill('SIGKILL');
    assert.ok(await waitGone(pid, 10_000), 'postmaster survived its parent');

    const pg = await startEmbeddedPostgres({ dataDir });
    try {
      assert.equal(pg.initdbMs, undefined);
      const rows = await withPg(async (c) => (await c.query('SELECT v FROM survives')).rows, pg.url);
      assert.deepEqual(rows, [{ v: 'before restart' }]);
    } finally {
      await pg.stop();
    }
  });

  it('starts over a stale postmaster.pid whose process is gone', async () => {
    const dead = spawnSync('true').pid!; // exited and reaped: its pid names no process now
    const pidFile = path.join(dataDir, 'postmaster.pid');
    await fs.writeFile(pidFile, `${dead}\n${dataDir}\n1700000000\n5999\n${dataDir}\n127.0.0.1\n  1234567   7\nready   \n`);
    const lines: string[] = [];
    const pg = await startEmbeddedPostgres({ dataDir, log: (l) => lines.push(l) });
    try {
      assert.ok(lines.some((l) => l.includes(`removing stale postmaster.pid (pid ${dead} is gone)`)));
      assert.equal(Number((await fs.readFile(pidFile, 'utf8')).split('\n')[0]), pg.pid);
      const rows = await withPg(async (c) => (await c.query('SELECT v FROM survives')).rows, pg.url);
      assert.equal(rows.length, 1);
    } finally {
      await pg.stop();
    }
  });

  it('falls back to TCP when the socket path would not fit sun_path (107 bytes)', () => {
    assert.equal(socketDirFor('/d', 5432), '/d');
    const fits = '/' + 'x'.repeat(107 - '/.s.PGSQL.5432.lock'.length - 1);
    assert.equal(socketDirFor(fits, 5432), fits);
    assert.equal(socketDirFor(fits + 'x', 5432), '');
  });

  it('refuses a non-empty folder that is not a data folder', async () => {
    const foreign = path.join(tmp, 'foreign');
    await fs.mkdir(foreign);
    await fs.writeFile(path.join(foreign, 'notes.txt'), 'mine');
    await assert.rejects(startEmbeddedPostgres({ dataDir: foreign }), { code: 'POSTRESP_ERR_PG_DATADIR' });
  });
});
