// Test helpers: a throw-away redis-server (no persistence) on a free port, and capturing the
// CLI's output in-process.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, type CliIo } from './cli';
import { startPeer, type ServerHandle } from './servers';

export interface TestRedis extends ServerHandle {
  dir: string;
  close(): Promise<void>;
}

/** redis-server (or valkey-server) with `--save '' --appendonly no` plus `extra` arguments. */
export async function startTestRedis(extra: string[] = []): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'harness-test-'));
  const s = await startPeer('none', dir, extra);
  return {
    ...s,
    dir,
    close: async () => {
      await s.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

export async function runCli(argv: string[]): Promise<CliRun> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (s) => { out += s; }, err: (s) => { err += s; }, tty: false };
  const code = await main(argv, io);
  return { code, out, err };
}
