// `npm run harness -- [valkey-benchmark flags]`: runs the selected tests against the target and
// prints valkey-benchmark's output (full, -q or --csv). With nothing listening on the loopback
// target it starts PostRESP itself (embedded Postgres) and stops it afterwards.

import { request, probe, RespErrorValue, type RespValue } from './resp-client';
import { OptionsError, kUsage, parseArgs, type HarnessOptions } from './options';
import { writeHdrLog, writeHtml, writeJson, type RunInfo } from './output';
import { csvLine, fullReport, kCsvHeader, progressLine, quietLine, sloVerdicts, type ServerConfig } from './report';
import { runTest, type TestResult } from './run';
import { startPostresp, ServerStartError, type ServerHandle } from './servers';
import { selectTests, type TestSpec } from './workloads';

const kLoopback = new Set(['127.0.0.1', 'localhost', '::1']);

export interface CliIo {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Progress lines with \r only on a terminal, like a human watching. */
  tty: boolean;
}

const stdio: CliIo = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  tty: process.stdout.isTTY === true,
};

function targetText(o: HarnessOptions): string {
  return o.socket !== null ? o.socket : `${o.host}:${o.port}`;
}

/** CONFIG GET save / appendonly for the "host configuration" lines; null when refused. */
async function serverConfig(o: HarnessOptions): Promise<ServerConfig | null> {
  const cmds: string[][] = [];
  if (o.password !== null) cmds.push(o.user !== null ? ['AUTH', o.user, o.password] : ['AUTH', o.password]);
  cmds.push(['CONFIG', 'GET', 'save'], ['CONFIG', 'GET', 'appendonly']);
  try {
    const replies = await request({ host: o.host, port: o.port, socket: o.socket }, cmds, 5000);
    const value = (r: RespValue): string | null => {
      if (r instanceof RespErrorValue || !Array.isArray(r) || r.length < 2) return null;
      return typeof r[1] === 'string' ? r[1] : '';
    };
    const save = value(replies[replies.length - 2]);
    const appendonly = value(replies[replies.length - 1]);
    return save === null || appendonly === null ? null : { save, appendonly };
  } catch {
    return null;
  }
}

/** Starts PostRESP when nothing listens on the loopback target; null when not needed. */
async function maybeAutostart(o: HarnessOptions, io: CliIo): Promise<ServerHandle | null> {
  if (o.socket !== null || !kLoopback.has(o.host)) return null;
  const state = await probe({ host: o.host, port: o.port });
  if (state !== 'refused') return null;
  if (!o.autostart) throw new ServerStartError(`Could not connect to server at ${o.host}:${o.port}: Connection refused`);
  io.err(`Nothing answers at ${o.host}:${o.port}: starting PostRESP (node dist/core/primary/main.js --port 0, ${o.pgUrl ? 'Postgres at --pg-url' : 'embedded Postgres'}${o.storageMode ? `, --storage-mode ${o.storageMode}` : ''}); the first start of the embedded Postgres takes a while...\n`);
  const server = await startPostresp({ storageMode: o.storageMode, dataDir: o.dataDir, pgUrl: o.pgUrl });
  io.err(`PostRESP ready at ${server.host}:${server.port} (${server.command.join(' ')}); it will be stopped after the run.\n`);
  return server;
}

function printResult(r: TestResult, o: HarnessOptions, config: ServerConfig | null, io: CliIo): void {
  if (o.csv) {
    if (r.failure === null) io.out(`${csvLine(r)}\n`);
    else io.err(`${r.title}: FAILED, ${r.failure}\n`);
    return;
  }
  if (o.quiet) {
    io.out(`${quietLine(r)}\n`);
    for (const v of sloVerdicts(o, r)) if (!v.pass) io.out(`${r.title}: SLO ${v.objective.text} missed\n`);
    return;
  }
  io.out(`${fullReport(r, { options: o, server: config })}\n`);
}

/** stop.value is set by SIGINT / SIGTERM: no further test starts (the server is going away) */
async function runAll(o: HarnessOptions, tests: TestSpec[], config: ServerConfig | null, io: CliIo,
  stop: { value: boolean }): Promise<{ results: TestResult[]; failed: boolean }> {
  let failed = false;
  let results: TestResult[] = [];
  do {
    results = [];
    for (const test of tests) {
      if (stop.value) {
        io.err(`Interrupted: ${tests.length - results.length} of ${tests.length} tests not run\n`);
        return { results, failed: true };
      }
      let shown = 0;
      const showProgress = io.tty && !o.csv;
      const r = await runTest(o, test, {
        onProgress: showProgress
          ? (p) => {
              const line = progressLine(p, o);
              io.out(`\r${line.padEnd(shown)}\r`);
              shown = line.length;
            }
          : undefined,
      });
      if (shown > 0) io.out(`${' '.repeat(shown)}\r`);
      printResult(r, o, config, io);
      results.push(r);
      if (r.failure !== null || sloVerdicts(o, r).some((v) => !v.pass)) failed = true;
    }
    if (!o.csv) io.out('\n');
  } while (o.loop && !stop.value);
  return { results, failed };
}

export async function main(argv: string[], io: CliIo = stdio): Promise<number> {
  let o: HarnessOptions;
  let tests: TestSpec[];
  try {
    o = parseArgs(argv);
    tests = selectTests(o);
  } catch (err) {
    if (!(err instanceof OptionsError) && (err as { code?: string }).code !== 'POSTRESP_ERR_HARNESS_OPTION') throw err;
    io.err(`${(err as Error).message}\n\n${kUsage}`);
    return 1;
  }
  if (o.help) {
    io.out(kUsage);
    return 0;
  }
  let server: ServerHandle | null = null;
  let stopping: Promise<void> = Promise.resolve();
  // one stop, awaited by everyone: the signal handler and the end of the run (which must not
  // exit while the server it started is still shutting down)
  const stopServer = (): Promise<void> => {
    if (server === null) return stopping;
    const s = server;
    server = null;
    io.err(`Stopping PostRESP at ${s.host}:${s.port}\n`);
    return (stopping = s.stop());
  };
  const interrupted = { value: false, code: 0 };
  const onSignal = (code: number) => (): void => {
    interrupted.value = true;
    interrupted.code = code;
    // the running test ends once its server is gone, and runAll says what was not run; exiting
    // here as soon as the server stopped lost that line under load. A test that does not end
    // within 5 s is not waited for.
    void stopServer().then(() => setTimeout(() => process.exit(code), 5000).unref());
  };
  const onSigint = onSignal(130);
  const onSigterm = onSignal(143);
  process.once('SIGINT', onSigint);
  process.once('SIGTERM', onSigterm);
  try {
    try {
      server = await maybeAutostart(o, io);
    } catch (err) {
      io.err(`${(err as Error).message}\n`);
      return 1;
    }
    if (server !== null) o = { ...o, host: server.host, port: server.port };
    const config = await serverConfig(o);
    if (config === null && !o.csv) io.err('WARNING: Could not fetch server CONFIG\n');
    if (o.csv) io.out(`${kCsvHeader}\n`);
    const info: RunInfo = {
      argv,
      target: targetText(o),
      startedAt: new Date().toISOString(),
      autostarted: server === null ? null : (server as ServerHandle).command.join(' '),
    };
    const { results, failed } = await runAll(o, tests, config, io, interrupted);
    if (o.json !== null) writeJson(o.json, info, o, results);
    if (o.html !== null) writeHtml(o.html, info, o, results);
    if (o.hdr !== null) writeHdrLog(o.hdr, results);
    if (interrupted.value) return interrupted.code;
    return failed ? 1 : 0;
  } finally {
    process.removeListener('SIGINT', onSigint);
    process.removeListener('SIGTERM', onSigterm);
    await stopServer();
  }
}

if (require.main === module) {
  // `npm run harness -- -l | head`: a closed stdout ends the run quietly.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
}
