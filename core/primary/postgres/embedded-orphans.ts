// Children of a postmaster that died by kill -9 (or the OOM killer) outlive it. An idle backend
// notices at its next wait and exits, but one busy in a statement runs on: measured here, a
// CPU-bound SELECT kept running after the kill until its statement_timeout. While any of them
// still maps the old shared memory segment, the next postmaster refuses to start ("pre-existing
// shared memory block (key …, ID …) is still in use", HINT "Terminate any old server processes
// associated with data directory"), so a restart would wait on the slowest statement.
//
// They are found by what they are, not by a pid remembered from before the crash: processes
// titled "postgres: …" (every postmaster child sets such a title; a postmaster itself keeps its
// command line) whose working directory is this data folder (the postmaster chdirs there and its
// children inherit it). Called only once no live postmaster owns the folder (clearStalePidFile
// refuses otherwise), so every such process is an orphan of a dead one. SIGKILL is what a
// postmaster itself sends to children still alive 5 s after its SIGQUIT, and the next start's
// crash recovery redoes from the WAL whatever they were in the middle of.
import fs from 'node:fs/promises';

const kWaitMs = 5_000; // SIGKILL is not delayed by the process; only a D-state wait can hold it
const kPollMs = 20;

// Linux only (/proc); elsewhere the start retries until they exit on their own.
export async function findOrphans(dataDir: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const real = await fs.realpath(dataDir).catch(() => dataDir);
  const names = await fs.readdir('/proc').catch(() => [] as string[]);
  const found: number[] = [];
  await Promise.all(names.map(async (name) => {
    if (!/^\d+$/.test(name)) return;
    // a zombie has an empty cmdline and no cwd: it holds no memory and is skipped
    const cmdline = await fs.readFile(`/proc/${name}/cmdline`, 'latin1').catch(() => '');
    if (!cmdline.startsWith('postgres: ')) return;
    // another user's process (not ours, not the server's as root): EACCES, skipped
    const cwd = await fs.readlink(`/proc/${name}/cwd`).catch(() => '');
    if (cwd === real) found.push(Number(name));
  }));
  return found.sort((a, b) => a - b);
}

// SIGKILL every orphan and wait until none is left; returns how many there were.
export async function killOrphans(dataDir: string, log: (line: string) => void): Promise<number> {
  const pids = await findOrphans(dataDir);
  if (pids.length === 0) return 0;
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch { /* exited meanwhile */ }
  }
  log(`killed ${pids.length} leftover process(es) of the previous postmaster on ${dataDir} ` +
    `(pids ${pids.join(' ')}): they keep its shared memory and the next start would be refused`);
  if (!(await orphansGone(dataDir, kWaitMs))) {
    log(`leftover PostgreSQL processes on ${dataDir} still alive ${kWaitMs / 1000} s after SIGKILL: ` +
      `${(await findOrphans(dataDir)).join(' ')}`);
  }
  return pids.length;
}

// True once no child of a dead postmaster is left on dataDir, false after ms. Also how a failed
// start waits for its logging collector: that child outlives the postmaster until it has
// written the last messages (the FATAL saying why) to the log file.
export async function orphansGone(dataDir: string, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, kPollMs))) {
    if ((await findOrphans(dataDir)).length === 0) return true;
    if (Date.now() >= end) return false;
  }
}
