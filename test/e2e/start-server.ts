/**
 * Starts the real server (dist/core/primary/main.js) as a child process on port 0 for end-to-end tests,
 * against the test run's Postgres (DATABASE_URL) in a schema of the test's own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface RunningServer {
  port: number;
  child: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const kMain = path.resolve(__dirname, '..', '..', 'core', 'primary', 'main.js');
let counter = 0;

export function uniqueSchema(prefix: string): string {
  return `${prefix}_${process.pid}_${++counter}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
}

// embedded: the server starts its own PostgreSQL (pass --data-dir): nothing that would select
// another server (--pg-url, DATABASE_URL, PGHOST, PGDATABASE) reaches it.
export async function startServer(args: string[] = [], opts: { schema?: string; timeoutMs?: number; embedded?: boolean } = {}): Promise<RunningServer> {
  const pg = process.env.DATABASE_URL && !opts.embedded ? ['--pg-url', process.env.DATABASE_URL] : [];
  const schema = ['--schema', opts.schema ?? uniqueSchema('e2e')];
  const env = { ...process.env };
  if (opts.embedded) for (const name of ['DATABASE_URL', 'PGHOST', 'PGDATABASE']) delete env[name];
  // a test that asks for several workers puts clients on them by connecting in turn (each goes to
  // the worker with the fewest): the worker fill, unless the test sets it, must not gather them on one
  const spread = args.includes('--workers') && !args.includes('--worker-fill') ? ['--worker-fill', '0'] : [];
  const child = spawn(process.execPath, [kMain, '--port', '0', '--loglevel', 'warning', ...pg, ...schema, ...spread, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'], env,
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const port = await new Promise<number>((resolve, reject) => {
    // a server that missed its start is killed, not left behind: one left by a run whose dist was
    // rebuilt under it spun at 75% of a core and grew to 4.2 GB RSS for 11 minutes
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`server did not start in time:\n${out}`)); }, opts.timeoutMs ?? 30000);
    const onData = () => {
      const m = /Ready to accept connections (?:(?:tcp|tls) \S+:(\d+)|unix (\S+))/.exec(out);
      if (m) { clearTimeout(timer); child.stdout!.off('data', onData); resolve(m[1] ? Number(m[1]) : 0); }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code}:\n${out}`)); });
  });
  // a crash (a signal, no stack) shows in output() that failing tests print
  child.once('exit', (code, signal) => { out += `\n[server exited: code ${code}, signal ${signal}]\n`; });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    port,
    child,
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      const t = setTimeout(() => child.kill('SIGKILL'), 15000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
  };
}
