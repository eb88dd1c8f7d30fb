// OS-level details of running the embedded server: PostgreSQL refuses to run as root ("root"
// execution of the PostgreSQL server is not permitted), so as root the postmaster runs as an
// unprivileged user, which must be able to reach the data folder through every parent directory.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PostgresSetupError } from './errors';

const execFileP = promisify(execFile);

export interface OsIds {
  uid: number;
  gid: number;
}

export function runningAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

// uid/gid of a named user, or undefined when it does not exist (`id` exits 1).
export async function idsOfUser(name: string): Promise<OsIds | undefined> {
  try {
    const [u, g] = await Promise.all([execFileP('id', ['-u', name]), execFileP('id', ['-g', name])]);
    return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
  } catch {
    return undefined;
  }
}

// Succeeds when `ids` can enter `dir`, checked by the kernel itself (ACLs, groups and all) by
// spawning `cd` as that user: one ~2 ms spawn per start instead of re-implementing permission
// rules. libuv drops supplementary groups when it switches uid, exactly as for the postmaster.
function canEnter(dir: string, ids: OsIds): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', 'cd -- "$1"', 'sh', dir], { ...ids, stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('exit', (code) => resolve(code === 0));
  });
}

// The folder itself when it exists, else its nearest existing ancestor (the rest is created
// later, by the right user).
async function deepestExisting(dir: string): Promise<string> {
  let current = path.resolve(dir);
  while (!(await fs.stat(current).then(() => true, () => false))) {
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return current;
}

function searchable(st: { uid: number; gid: number; mode: number }, ids: OsIds): boolean {
  if (st.uid === ids.uid) return (st.mode & 0o100) !== 0;
  if (st.gid === ids.gid) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

// Gives `ids` search (x, not read) permission on each existing ancestor of `dir` that lacks it:
// /root is 0700 and mkdtemp makes 0700 folders, so a data folder below either is otherwise out of
// reach. Prefers an ACL entry for that one user (setfacl, when installed); falls back to o+x,
// which lets other users traverse the folder by exact name but still not list it.
export async function ensureReachable(dir: string, ids: OsIds, log: (line: string) => void): Promise<void> {
  const target = await deepestExisting(dir);
  if (await canEnter(target, ids)) return;
  const parts = target.split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const ancestor = path.sep + parts.slice(0, i).join(path.sep);
    const st = await fs.stat(ancestor);
    if (searchable(st, ids)) continue;
    try {
      await execFileP('setfacl', ['-m', `u:${ids.uid}:x`, ancestor]);
      log(`granted search permission on ${ancestor} to uid ${ids.uid} (ACL) so PostgreSQL can reach its data folder`);
    } catch {
      await fs.chmod(ancestor, (st.mode & 0o7777) | 0o001);
      log(`added o+x to ${ancestor} so PostgreSQL (uid ${ids.uid}) can reach its data folder`);
    }
  }
  if (!(await canEnter(target, ids))) {
    throw new PostgresSetupError(
      'POSTRESP_ERR_PG_DATADIR',
      `PostgreSQL runs as uid ${ids.uid} (it refuses root) and cannot reach ${dir}: ` +
        'give that user search permission on every parent folder, or pass a data folder outside /root',
    );
  }
}

// setpriv (util-linux) sets PR_SET_PDEATHSIG before exec'ing the postmaster, so the kernel sends
// it SIGINT (fast shutdown) when PostRESP dies, even by kill -9. Undefined off Linux or without
// util-linux: then a crashed parent leaves the server running, and the next start reports it.
export async function findSetpriv(): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter)) {
    const candidate = path.join(dir || '.', 'setpriv');
    const ok = await fs.access(candidate, fsConstants.X_OK).then(() => true, () => false);
    if (ok) return candidate;
  }
  return undefined;
}
