// Servers the harness starts itself: PostRESP (node dist/core/primary/main.js, embedded Postgres by
// default) and redis-server / valkey-server in a persistence mode, each on a free port.

import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { request } from './resp-client';

export interface ServerHandle {
  /** e.g. "postresp/logged", "redis/aof-always" */
  name: string;
  host: string;
  port: number;
  /** The command line that started it, for the report. */
  command: string[];
  /** Last lines the server printed, for error messages. */
  tail(): string;
  /** The server's process id (CPU time from /proc/<pid>/stat in bench:bullmq). */
  pid?: number;
  stop(): Promise<void>;
}

export class ServerStartError extends Error {
  readonly code = 'POSTRESP_ERR_HARNESS_SERVER_START';
}

export const kPersistenceModes = ['none', 'rdb', 'aof-everysec', 'aof-always'] as const;
export type PersistenceMode = (typeof kPersistenceModes)[number];

const kPersistenceArgs: Record<PersistenceMode, string[]> = {
  none: ['--save', '', '--appendonly', 'no'],
  rdb: ['--save', '1 1', '--appendonly', 'no'],
  'aof-everysec': ['--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec'],
  'aof-always': ['--save', '', '--appendonly', 'yes', '--appendfsync', 'always'],
};

const kReadyLine = /^Ready to accept connections tcp ([0-9.]+):(\d+)\s*$/;
const kTailLines = 40;
const live = new Set<ChildProcess>();

process.once('exit', () => {
  for (const c of live) c.kill('SIGTERM');
});

/** For the entry points: Ctrl-C or SIGTERM stops the servers we started, then exits. */
export function stopServersOnSignal(): void {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => {
      for (const c of live) c.kill('SIGTERM');
      process.exit(code);
    });
  }
}

/** The package root: dist/harness/servers.js → ../.. */
export function packageRoot(): string {
  return resolve(__dirname, '..', '..');
}

/** dist/core/primary/main.js; POSTRESP_ENTRY points elsewhere (the harness tests use a stub). */
export function postrespEntry(): string {
  return process.env.POSTRESP_ENTRY || join(packageRoot(), 'dist', 'core', 'primary', 'main.js');
}

/** First of the names found executable on PATH, or null. */
export function findOnPath(...names: string[]): string | null {
  for (const name of names) {
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      const p = join(dir, name);
      try {
        accessSync(p, constants.X_OK);
        return p;
      } catch {
        // not here
      }
    }
  }
  return null;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

function track(child: ChildProcess): () => string {
  live.add(child);
  child.once('exit', () => live.delete(child));
  const lines: string[] = [];
  const keep = (line: string): void => {
    lines.push(line);
    if (lines.length > kTailLines) lines.shift();
  };
  if (child.stdout) createInterface({ input: child.stdout }).on('line', keep);
  if (child.stderr) createInterface({ input: child.stderr }).on('line', keep);
  return () => lines.join('\n');
}

function stopper(child: ChildProcess, graceMs = 30_000): () => Promise<void> {
  return () =>
    new Promise((resolveStop) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.once('exit', () => {
        clearTimeout(timer);
        resolveStop();
      });
      child.kill('SIGTERM');
    });
}

export interface PostrespOptions {
  storageMode?: string | null;
  dataDir?: string | null;
  pgUrl?: string | null;
  /** Postgres schema holding the keyspace (PostRESP's --schema); its default when absent. */
  schema?: string | null;
  /** First start of the embedded Postgres runs initdb: allow minutes, not seconds. */
  timeoutMs?: number;
}

/** Starts `node dist/core/primary/main.js --port 0 --bind 127.0.0.1 …` and waits for its Ready line. */
export function startPostresp(opts: PostrespOptions = {}): Promise<ServerHandle> {
  const entry = postrespEntry();
  const args = [entry, '--port', '0', '--bind', '127.0.0.1'];
  if (opts.storageMode) args.push('--storage-mode', opts.storageMode);
  if (opts.dataDir) args.push('--data-dir', opts.dataDir);
  if (opts.pgUrl) args.push('--pg-url', opts.pgUrl);
  if (opts.schema) args.push('--schema', opts.schema);
  const name = `postresp/${opts.storageMode ?? 'default'}`;
  const command = ['node', relative(packageRoot(), entry), ...args.slice(1)];
  if (!existsSync(entry)) {
    return Promise.reject(new ServerStartError(`PostRESP is not built: ${entry} is missing (run npx tsc -p .)`));
  }
  const child = spawn(process.execPath, args, { cwd: packageRoot(), stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = track(child);
  return new Promise((resolveStart, reject) => {
    const timeoutMs = opts.timeoutMs ?? 180_000;
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new ServerStartError(`${name} did not start: ${why}\n${tail()}`));
    };
    const timer = setTimeout(() => fail(`no Ready line within ${timeoutMs / 1000} s`), timeoutMs);
    child.once('error', (err) => fail(err.message));
    child.once('exit', (code, signal) => fail(`exited with ${signal ?? `code ${code}`} before it was ready`));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = kReadyLine.exec(line);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.once('exit', () => undefined);
      resolveStart({ name, host: m[1], port: Number(m[2]), command, tail, pid: child.pid, stop: stopper(child) });
    });
  });
}

/** valkey-server if on PATH, else redis-server. */
export function peerBinary(): { path: string; name: 'valkey' | 'redis' } | null {
  const valkey = findOnPath('valkey-server');
  if (valkey !== null) return { path: valkey, name: 'valkey' };
  const redis = findOnPath('redis-server');
  return redis !== null ? { path: redis, name: 'redis' } : null;
}

/** Starts the peer in a persistence mode, in its own folder, and waits until it answers PING. */
export async function startPeer(mode: PersistenceMode, dir: string, extraArgs: string[] = []): Promise<ServerHandle> {
  const bin = peerBinary();
  if (bin === null) throw new ServerStartError('neither valkey-server nor redis-server is on PATH');
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--daemonize', 'no', ...kPersistenceArgs[mode], ...extraArgs];
  const child = spawn(bin.path, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = track(child);
  const name = `${bin.name}/${mode}`;
  const command = [bin.name === 'valkey' ? 'valkey-server' : 'redis-server', ...args.map((a) => (a === '' ? "''" : a.includes(' ') ? `'${a}'` : a))];
  const handle: ServerHandle = { name, host: '127.0.0.1', port, command, tail, pid: child.pid, stop: stopper(child) };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new ServerStartError(`${name} exited with code ${child.exitCode}\n${tail()}`);
    try {
      const [pong] = await request({ host: '127.0.0.1', port }, [['PING']], 1000);
      // With requirepass the server answers NOAUTH: it is up all the same.
      if (pong === 'PONG' || typeof pong === 'object') return handle;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await handle.stop();
      throw new ServerStartError(`${name} did not answer PING within 15 s\n${tail()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
