#!/usr/bin/env node
/**
 * `postresp [config-file] [--option value …]` — starts the server (README lists every option).
 */
import { envName, loadConfig } from './config/config';
import { kOptions } from './config/options';
import { PostrespError } from './errors';
import { PrimaryServer } from './server';
import { kPostrespVersion, kRedisVersion } from './version';

function usage(): string {
  const rows = kOptions.filter((o) => !o.noop).map((o) =>
    `  --${o.name.padEnd(28)} ${o.description} (default: ${o.default === '' ? '""' : o.default}; env ${envName(o.name)})`);
  return `Usage: postresp [config-file] [--option value ...]\n\nOptions:\n${rows.join('\n')}\n` +
    '\nRedis parameters accepted for compatibility with no effect: see README.\n';
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) { process.stdout.write(usage()); return; }
  if (argv.includes('--version') || argv.includes('-v')) {
    process.stdout.write(`PostRESP v=${kPostrespVersion} redis-compat=${kRedisVersion} node=${process.versions.node}\n`);
    return;
  }
  const config = loadConfig({ argv, env: process.env });
  const log = (line: string) => {
    if (config.str('loglevel') !== 'nothing') process.stderr.write(`postresp: ${line}\n`);
  };
  const server = new PrimaryServer(config, log);
  let exiting = false;
  const stop = (reason: string) => {
    if (exiting) return;
    exiting = true;
    server.shutdown(reason).then(() => process.exit(0), (e: Error) => {
      log(`shutdown failed: ${e.message}`);
      process.exit(1);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const ready = await server.start();
  server.onStopped.push(async () => { exiting = true; });
  process.stdout.write(`${ready}\n`);
  // SHUTDOWN from a client: the primary stops, then the process exits
  const check = setInterval(() => undefined, 1 << 30);
  server.onStopped.push(async () => { clearInterval(check); setImmediate(() => process.exit(0)); });
}

main().catch((e: unknown) => {
  if (e instanceof PostrespError) process.stderr.write(`postresp: ${e.message} [${e.code}]\n`);
  else process.stderr.write(`postresp: fatal: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
