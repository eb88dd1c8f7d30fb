/**
 * Differential oracle: a real `redis-server` and a PostRESP side by side. `compare()` sends the
 * same command sessions to both with the same connection pattern and reports every reply that is
 * not byte-identical, with the commands before it.
 *
 *   session = one connection = an ordered list of commands
 *   window  = commands per socket write: 1 = one at a time, Infinity = whole session in one write
 *   sessions run concurrently (one connection each) on one server, then on the other
 *
 * Normalised (and only these, see kNormalise): replies whose text is server-specific by nature
 * (INFO, HELLO, CLIENT ID/INFO/LIST, TIME, COMMAND DOCS…) are compared by reply type only.
 * Everything else must match byte for byte.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { encode } from '../e2e/resp-client';
import { startServer, uniqueSchema, type RunningServer } from '../e2e/start-server';
import { withPg } from '../support/pg';
import { Rng } from './prng';
import { FrameConn, show } from './resp-frames';

export type Cmd = (string | Buffer)[];

export interface Mismatch {
  session: number;
  index: number;
  command: string;
  redis: string;
  postresp: string;
  /** the commands just before, with redis-server's replies */
  before: string[];
}

export interface CompareResult {
  mismatches: Mismatch[];
  commands: number;
}

export interface CompareOptions {
  window?: number; // commands per write (default 1)
  idleMs?: number; // no byte for this long = the server hangs (default 15 s)
  /** commands of context printed before a mismatch (default 6) */
  context?: number;
  /** deliver each write in random pieces of 1..maxBytes, one event-loop turn apart (same split for both servers) */
  split?: { seed: number; maxBytes: number };
}

// The reply of these is server-specific text; compared by its first byte (the RESP type) only.
const kNormalise: ReadonlySet<string> = new Set([
  'info', 'hello', 'time', 'lastsave', 'client id', 'client info', 'client list', 'command docs',
  'command info', 'command', 'command count', 'command list', 'config get', 'memory usage',
]);

function normalisedName(cmd: Cmd): string | undefined {
  const name = String(cmd[0]).toLowerCase();
  if (kNormalise.has(name)) return name;
  const sub = cmd.length > 1 ? `${name} ${String(cmd[1]).toLowerCase()}` : '';
  return kNormalise.has(sub) ? sub : undefined;
}

export function showCmd(cmd: Cmd): string {
  return cmd.map((a) => {
    const s = show(typeof a === 'string' ? Buffer.from(a) : a, 60);
    return /^[A-Za-z0-9_:.\-+]+$/.test(s) ? s : `"${s}"`;
  }).join(' ');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** redis-server with persistence off, on a free port, in a temp folder of its own. */
export async function startRedis(bin = 'redis-server'): Promise<RedisServer> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'postresp-oracle-'));
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
      '--dir', dir, '--daemonize', 'no', '--loglevel', 'warning'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    if (await pingUntilUp(port, child)) {
      // a test process that dies without stop() must not leave redis-server running
      const onExit = () => { child.kill('SIGKILL'); };
      process.on('exit', onExit);
      return {
        port, child,
        async stop() {
          process.removeListener('exit', onExit);
          child.kill('SIGTERM');
          await exited;
          await fs.rm(dir, { recursive: true, force: true });
        },
      };
    }
    child.kill('SIGKILL');
    await exited;
    if (attempt === 3) {
      await fs.rm(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not start (is it installed? apt-get install redis-server):\n${out}`);
    }
  }
}

async function pingUntilUp(port: number, child: ChildProcess): Promise<boolean> {
  for (const end = Date.now() + 10000; Date.now() < end && child.exitCode === null;) {
    const c = await FrameConn.connect(port).catch(() => undefined);
    if (c) {
      c.write(encode('PING'));
      const r = await c.read(1, 2000);
      c.close();
      if (r.frames[0]?.toString() === '+PONG\r\n') return true;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

async function writeSplit(conn: FrameConn, data: Buffer, rng: Rng, maxBytes: number): Promise<void> {
  for (let at = 0; at < data.length;) {
    const n = rng.between(1, maxBytes);
    conn.write(data.subarray(at, at + n));
    at += n;
    await new Promise((r) => setImmediate(r));
  }
}

async function runSession(port: number, cmds: Cmd[], window: number, idleMs: number, split?: CompareOptions['split']): Promise<Buffer[]> {
  const conn = await FrameConn.connect(port);
  const replies: Buffer[] = [];
  const rng = split ? new Rng(split.seed) : undefined;
  try {
    for (let i = 0; i < cmds.length;) {
      const batch = cmds.slice(i, i + window);
      const data = Buffer.concat(batch.map((c) => encode(...c)));
      if (rng && split) {
        // replies may arrive while the rest is still being written: read concurrently
        const [r] = await Promise.all([conn.read(batch.length, idleMs), writeSplit(conn, data, rng, split.maxBytes)]);
        replies.push(...r.frames);
        if (r.stopped) {
          replies.push(Buffer.from(`<${r.stopped} after ${replies.length} replies>`));
          break;
        }
        i += batch.length;
        continue;
      }
      conn.write(data);
      const r = await conn.read(batch.length, idleMs);
      replies.push(...r.frames);
      if (r.stopped) {
        replies.push(Buffer.from(`<${r.stopped} after ${replies.length} replies>`));
        break;
      }
      i += batch.length;
    }
  } finally {
    conn.close();
  }
  return replies;
}

function sameReply(cmd: Cmd, a: Buffer | undefined, b: Buffer | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (normalisedName(cmd) !== undefined) return a[0] === b[0];
  return a.equals(b);
}

export class Oracle {
  private constructor(readonly redis: RedisServer, readonly postresp: RunningServer, readonly schema: string) {}

  /**
   * Unlogged storage by default: replies do not depend on the storage mode, and a logged commit
   * waits for a WAL flush (~10 ms per serial write on this disk vs ~1 ms): DIFF_STORAGE_MODE=logged
   * runs the same tests against logged tables.
   */
  static async start(postrespArgs: string[] = ['--workers', '2',
    '--storage-mode', process.env.DIFF_STORAGE_MODE || 'unlogged']): Promise<Oracle> {
    const schema = uniqueSchema('diff');
    const [redis, postresp] = await Promise.all([startRedis(), startServer(postrespArgs, { schema })]);
    return new Oracle(redis, postresp, schema);
  }

  /** Empties both keyspaces (every db). */
  async reset(): Promise<void> {
    await Promise.all([this.redis.port, this.postresp.port].map(async (port) => {
      const [r] = await runSession(port, [['FLUSHALL']], 1, 15000);
      if (r?.toString() !== '+OK\r\n') throw new Error(`FLUSHALL on port ${port} answered ${show(r ?? '')}`);
    }));
  }

  /** Same sessions to both servers; every reply that differs, with context. */
  async compare(sessions: Cmd[][], opts: CompareOptions = {}): Promise<CompareResult> {
    const window = opts.window ?? 1;
    const idleMs = opts.idleMs ?? 15000;
    const run = (port: number) => Promise.all(sessions.map((s, n) =>
      runSession(port, s, window, idleMs, opts.split && { ...opts.split, seed: opts.split.seed + n })));
    const expected = await run(this.redis.port);
    const actual = await run(this.postresp.port);
    const mismatches: Mismatch[] = [];
    let commands = 0;
    sessions.forEach((cmds, s) => {
      commands += cmds.length;
      for (let i = 0; i < cmds.length; i++) {
        const e = expected[s][i];
        const a = actual[s][i];
        if (sameReply(cmds[i], e, a)) continue;
        const from = Math.max(0, i - (opts.context ?? 6));
        mismatches.push({
          session: s, index: i, command: showCmd(cmds[i]),
          redis: e === undefined ? '<no reply>' : show(e), postresp: a === undefined ? '<no reply>' : show(a),
          before: cmds.slice(from, i).map((c, k) => `#${from + k} ${showCmd(c)} → ${show(expected[s][from + k] ?? '', 60)}`),
        });
      }
    });
    return { mismatches, commands };
  }

  async stop(): Promise<void> {
    await Promise.all([this.redis.stop(), this.postresp.stop()]);
    await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`))).catch(() => undefined);
  }
}

/** A failure message: the seed, how to rerun, then the first few mismatches. */
export function report(label: string, seed: number, r: CompareResult, max = 8): string {
  const lines = [`${label}: ${r.mismatches.length} of ${r.commands} replies differ from redis-server ` +
    `(seed ${seed}; rerun: DIFF_SEED=${seed} node dist/scripts/run-tests.js differential)`];
  // one line per kind of difference (command name, both replies), most frequent first
  const kinds = new Map<string, { n: number; example: Mismatch }>();
  for (const m of r.mismatches) {
    const k = `${m.command.split(' ')[0].toUpperCase()}: redis-server ${m.redis} | postresp ${m.postresp}`;
    const e = kinds.get(k);
    if (e) e.n++;
    else kinds.set(k, { n: 1, example: m });
  }
  lines.push('  kinds:');
  for (const [k, { n, example }] of [...kinds].sort((a, b) => b[1].n - a[1].n).slice(0, 12)) {
    lines.push(`    ${n}× ${k}`, `       e.g. session ${example.session} #${example.index}: ${example.command}`);
  }
  if (kinds.size > 12) lines.push(`    … and ${kinds.size - 12} more kinds`);
  lines.push('  first mismatches:');
  for (const m of r.mismatches.slice(0, max)) {
    lines.push(`  session ${m.session}, command #${m.index}: ${m.command}`,
      `    redis-server: ${m.redis}`, `    postresp:     ${m.postresp}`);
    if (m.before.length) lines.push('    after:', ...m.before.map((b) => `      ${b}`));
  }
  if (r.mismatches.length > max) lines.push(`  … and ${r.mismatches.length - max} more`);
  return lines.join('\n');
}
