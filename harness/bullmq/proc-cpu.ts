// CPU time of a server process and of the embedded Postgres it started, from /proc/<pid>/stat
// (utime + stime, in clock ticks of 10 ms): bench:bullmq reports µs per job of each.

import { readdirSync, readFileSync } from 'node:fs';

const kTickUs = 10_000;

interface Stat { ppid: number; comm: string; ownUs: number; childrenUs: number }

function stat(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    // fields after the comm: state ppid … utime(14) stime(15) cutime(16) cstime(17), 1-based from pid
    const f = text.slice(close + 2).split(' ');
    return { ppid: Number(f[1]), comm, ownUs: (Number(f[11]) + Number(f[12])) * kTickUs, childrenUs: (Number(f[13]) + Number(f[14])) * kTickUs };
  } catch {
    return null;
  }
}

function allStats(): Map<number, Stat> {
  const out = new Map<number, Stat>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const s = stat(pid);
    if (s) out.set(pid, s);
  }
  return out;
}

export interface CpuSample { serverUs: number; postgresUs: number }

/**
 * The server's own CPU, and its `postgres` descendants': the postmaster with the time of its
 * reaped backends (cutime/cstime) plus every live backend's own. Only the server's own time for
 * redis-server (no children).
 */
export function sampleCpu(pid: number): CpuSample {
  const stats = allStats();
  const serverUs = stats.get(pid)?.ownUs ?? 0;
  const inTree = new Set([pid]);
  let postgresUs = 0;
  // parents come before children in pid order only mostly: loop until no new member is found
  for (let grew = true; grew;) {
    grew = false;
    for (const [p, s] of stats) {
      if (inTree.has(p) || !inTree.has(s.ppid)) continue;
      inTree.add(p);
      grew = true;
      if (s.comm === 'postgres') postgresUs += s.ownUs + (s.ppid === pid ? s.childrenUs : 0);
    }
  }
  return { serverUs, postgresUs };
}
