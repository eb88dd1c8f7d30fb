// Which PostgreSQL to use, and a first connection that turns driver failures into errors an
// operator can act on. Order (README "Configuration"): --pg-url, DATABASE_URL,
// libpq PG* variables, else undefined → the embedded server.
import pg from 'pg';
import { PostgresSetupError } from './errors';

export type PgTargetSource = '--pg-url' | 'DATABASE_URL' | 'PG* variables';

export interface PgTarget {
  url: string;
  source: PgTargetSource;
}

// PGHOST or PGDATABASE alone count as "configured": PGUSER/PGPASSWORD are often exported for
// psql without meaning "do not start an embedded server". The URL keeps absent fields absent so
// libpq and node-postgres apply their own defaults (OS user name, port 5432).
export function resolvePgTarget(pgUrl: string | undefined, env: NodeJS.ProcessEnv = process.env): PgTarget | undefined {
  if (pgUrl) return { url: pgUrl, source: '--pg-url' };
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, source: 'DATABASE_URL' };
  if (!env.PGHOST && !env.PGDATABASE) return undefined;
  const host = env.PGHOST ?? '';
  const socket = host.startsWith('/'); // a socket folder travels as ?host=, not in the authority
  const auth = env.PGUSER
    ? encodeURIComponent(env.PGUSER) + (env.PGPASSWORD ? ':' + encodeURIComponent(env.PGPASSWORD) : '') + '@'
    : '';
  const params = new URLSearchParams();
  if (socket) params.set('host', host);
  if (socket && env.PGPORT) params.set('port', env.PGPORT);
  if (env.PGSSLMODE) params.set('sslmode', env.PGSSLMODE);
  const hostPort = socket ? '' : (host.includes(':') ? `[${host}]` : host) + (env.PGPORT ? `:${env.PGPORT}` : '');
  const query = params.toString();
  return {
    url: `postgres://${auth}${hostPort}/${encodeURIComponent(env.PGDATABASE ?? '')}${query ? '?' + query : ''}`,
    source: 'PG* variables',
  };
}

interface UrlParts {
  host: string;
  port: string;
  user: string;
  database: string;
}

function partsOf(url: string): UrlParts {
  try {
    const u = new URL(url);
    const host = u.searchParams.get('host') ?? (decodeURIComponent(u.hostname) || 'localhost');
    return {
      host,
      port: u.searchParams.get('port') ?? (u.port || '5432'),
      user: decodeURIComponent(u.username) || process.env.PGUSER || process.env.USER || '(OS user)',
      database: decodeURIComponent(u.pathname.slice(1)) || decodeURIComponent(u.username) || '(default)',
    };
  } catch {
    return { host: '(unparsable URL)', port: '', user: '', database: '' };
  }
}

// "user@host:port/db", never the password: safe for logs and the test runner's banner.
export function describePgUrl(url: string): string {
  const p = partsOf(url);
  return `${p.user}@${p.host}${p.port ? ':' + p.port : ''}/${p.database}`;
}

// Node's TLS verification codes: the server's certificate does not chain to sslrootcert
// (SELF_SIGNED_CERT_IN_CHAIN, UNABLE_TO_VERIFY_LEAF_SIGNATURE), names another host, or expired.
const kCertCodes = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME/;
const kUnreachable = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOENT', 'ECONNRESET']);

// Maps what node-postgres throws (SQLSTATE in `code`, or a socket errno) to PostgresSetupError.
// `during` names the step for failures without a dedicated code ("connecting to", "migrating").
export function mapPgError(err: unknown, url: string, during = 'connecting to'): PostgresSetupError {
  if (err instanceof PostgresSetupError) return err;
  const e = err as { code?: string; message?: string };
  const p = partsOf(url);
  const where = `${p.host}:${p.port}`;
  const why = e.message ?? String(err);
  const opt = { cause: err };
  if ((e.code && kUnreachable.has(e.code)) || /timeout|terminated unexpectedly/i.test(why)) {
    return new PostgresSetupError('POSTRESP_ERR_PG_UNREACHABLE', `cannot reach PostgreSQL at ${where}: ${why}. ` +
      'Start it, or pass --pg-url (or DATABASE_URL) for a server that is running', opt);
  }
  if (e.code && kCertCodes.test(e.code)) {
    return new PostgresSetupError('POSTRESP_ERR_PG_CONNECT', `PostgreSQL at ${where} sent a certificate that fails ` +
      `the sslmode check: ${why} (${e.code}). Point sslrootcert in --pg-url at the CA that signed the server's ` +
      'certificate, and connect by a name the certificate holds', opt);
  }
  switch (e.code) {
    case '28P01':
    case '28000':
      return new PostgresSetupError('POSTRESP_ERR_PG_AUTH', `PostgreSQL at ${where} refused user "${p.user}": ${why}. ` +
        'Fix the user/password in --pg-url, DATABASE_URL or PGPASSWORD, or the server\'s pg_hba.conf', opt);
    case '3D000':
      return new PostgresSetupError('POSTRESP_ERR_PG_NO_DATABASE', `database "${p.database}" does not exist on ${where}: ` +
        `create it (createdb ${p.database}, or CREATE DATABASE) or point --pg-url at an existing database`, opt);
    case '42501':
      return new PostgresSetupError('POSTRESP_ERR_PG_PRIVILEGE', `user "${p.user}" lacks a privilege on ${where}/${p.database}: ` +
        `${why}. Grant it (e.g. GRANT CONNECT, CREATE ON DATABASE ${p.database} TO ${p.user}) or use another user`, opt);
  }
  if (/SASL|password must be a string/i.test(why)) {
    return new PostgresSetupError('POSTRESP_ERR_PG_AUTH', `PostgreSQL at ${where} asks user "${p.user}" for a password ` +
      'and none was given: add it to --pg-url / DATABASE_URL, or set PGPASSWORD', opt);
  }
  const code = during === 'connecting to' ? 'POSTRESP_ERR_PG_CONNECT' : 'POSTRESP_ERR_PG_QUERY';
  return new PostgresSetupError(code, `${during} PostgreSQL at ${where}/${p.database} failed: ${why}`, opt);
}

// 5 s: a local server answers in ~5 ms; a remote one that takes longer than 5 s to accept a
// connection is not one to serve Redis traffic from.
const kConnectTimeoutMs = 5_000;

// node-postgres 8 treats sslmode prefer, require and verify-ca as verify-full (and prints a
// warning), where libpq — our lanes, the bus, the primary's connections — lets `require`
// encrypt without verifying. One URL must mean one thing for both clients, so node-postgres gets
// libpq's meaning through pg-connection-string's `uselibpqcompat=true` (libpq itself would refuse
// that parameter: it is added here only). A URL that already sets it, or has no sslmode, is kept.
export function nodePostgresUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (!u.searchParams.has('sslmode') || u.searchParams.has('uselibpqcompat')) return url;
  return `${url}&uselibpqcompat=true`;
}

export async function connectClient(url: string): Promise<pg.Client> {
  let client: pg.Client | undefined;
  try {
    // inside try: pg-connection-string throws here for verify-ca without sslrootcert
    client = new pg.Client({ connectionString: nodePostgresUrl(url), connectionTimeoutMillis: kConnectTimeoutMs });
    client.on('error', () => undefined); // a server dying between queries must not crash the process
    await client.connect();
    return client;
  } catch (err) {
    await client?.end().catch(() => undefined);
    throw mapPgError(err, url);
  }
}

// Connects once, returns the server version ("17.10"); throws PostgresSetupError.
export async function checkConnection(url: string): Promise<{ serverVersion: string }> {
  const client = await connectClient(url);
  try {
    const res = await client.query<{ server_version: string }>('SHOW server_version');
    return { serverVersion: res.rows[0]!.server_version };
  } catch (err) {
    throw mapPgError(err, url);
  } finally {
    await client.end().catch(() => undefined);
  }
}
