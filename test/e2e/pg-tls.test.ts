/**
 * TLS between PostRESP and PostgreSQL: a Postgres of its own with ssl=on and a pg_hba.conf of
 * `hostssl` lines only (a plain connection is refused), a server certificate of a test CA.
 * PostRESP with sslmode=verify-full and the password from --pg-password-file serves SET/GET and
 * every backend it holds (lanes, script connections, the bus, the primary's) is encrypted, as
 * pg_stat_ssl shows; migrations use node-postgres, and hostssl let them in. Refused: the server
 * checked against another CA (a clear error, no hang) and sslmode=disable (hba). sslmode=require
 * means what libpq means (encrypted, not verified) for node-postgres too. A client certificate
 * (sslcert/sslkey, clientcert=verify-full) lets in the user it names.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Redis from 'ioredis';
import pg from 'pg';
import { startServer, type RunningServer } from './start-server';
import { makeCerts, type TestCerts } from './tls-certs';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../core/primary/postgres/embedded';
import { initialiseDataDir } from '../../core/primary/postgres/embedded-init';


describe('TLS to PostgreSQL', () => {
  let certs: TestCerts;
  let work: string;
  let pgs: EmbeddedPostgres;
  let password: string;
  let passwordFile: string;
  const servers: RunningServer[] = [];
  // the URL to our server with the given query, no password in it (it comes from the file)
  const url = (query: string, db: string) => `postgresql://postgres@127.0.0.1:${pgs.port}/${db}?${query}`;
  const run = async (query: string, db = 'postgres', timeoutMs = 30000) => {
    const s = await startServer(['--pg-url', url(query, db), '--pg-password-file', passwordFile], { timeoutMs });
    servers.push(s);
    return s;
  };
  /** the superuser over TLS, for checks and setup */
  const admin = async () => {
    const c = new pg.Client({ connectionString: pgs.url, ssl: { ca: certs.read(certs.ca), servername: 'localhost' } });
    await c.connect();
    return c;
  };
  /** SET and GET through PostRESP, then `more` on the same connection */
  const setGet = async (s: RunningServer, key: string, value: string, more?: (r: Redis) => Promise<void>) => {
    const r = new Redis({ port: s.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
    await r.connect();
    try {
      assert.equal(await r.set(key, value), 'OK');
      assert.equal(await r.get(key), value);
      await more?.(r);
    } finally {
      r.disconnect();
    }
  };
  /** a start that must fail: what it printed */
  const refused = async (query: string, db = 'postgres') => {
    try {
      const s = await run(query, db, 20000);
      assert.fail(`started: ${s.output()}`);
    } catch (e) {
      return String((e as Error).message);
    }
  };

  before(async () => {
    certs = makeCerts();
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: certs.dir, stdio: ['ignore', 'ignore', 'pipe'] });
    // clientcert=verify-full: the certificate's CN is the user name
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'pguser.key', '-out', 'pguser.csr', '-subj', '/CN=postgres');
    ssl('x509', '-req', '-in', 'pguser.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'pguser.crt', '-days', '2');
    fs.chmodSync(path.join(certs.dir, 'pguser.key'), 0o600);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'postresp-pgtls-'));
    const dataDir = path.join(work, 'pg');
    await initialiseDataDir(dataDir, () => undefined);
    // Postgres reads its key only when its own user owns it with mode 0600: copy the files into
    // the data folder, owned by whoever owns that (the "postgres" user when we run as root)
    const owner = fs.statSync(dataDir);
    const put = (name: string, from: string | Buffer, mode: number) => {
      const to = path.join(dataDir, name);
      fs.writeFileSync(to, typeof from === 'string' ? fs.readFileSync(from) : from, { mode });
      fs.chownSync(to, owner.uid, owner.gid);
    };
    put('server.crt', certs.server2Cert, 0o644);
    put('server.key', certs.server2Key, 0o600);
    put('ca.crt', certs.ca, 0o644);
    put('hba.conf', Buffer.from([
      // first match wins: the client-certificate database: certificate AND password
      'hostssl certdb all 127.0.0.1/32 scram-sha-256 clientcert=verify-full',
      'hostssl all postgres 127.0.0.1/32 scram-sha-256',
      '',
    ].join('\n')), 0o600);
    pgs = await startEmbeddedPostgres({ dataDir, settings: {
      ssl: 'on', ssl_cert_file: 'server.crt', ssl_key_file: 'server.key', ssl_ca_file: 'ca.crt', hba_file: `${dataDir}/hba.conf`,
    } });
    password = new URL(pgs.url).password;
    passwordFile = path.join(work, 'pg-password');
    fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  });

  after(async () => {
    for (const s of servers) await s.stop();
    await pgs?.stop();
    if (work) fs.rmSync(work, { recursive: true, force: true });
    certs?.remove();
  });

  it('verify-full: SET/GET work and every backend of PostRESP is encrypted', async () => {
    const s = await run(`sslmode=verify-full&sslrootcert=${encodeURIComponent(certs.ca)}`);
    await setGet(s, 'k', 'over tls', async (r) => {
      assert.equal(await r.eval("return redis.call('GET', KEYS[1])", 1, 'k'), 'over tls'); // a script connection
      const c = await admin();
      try {
        const rows = (await c.query<{ app: string; ssl: boolean }>(
          `SELECT a.application_name AS app, s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
           WHERE a.backend_type = 'client backend' AND a.pid <> pg_backend_pid() ORDER BY 1`)).rows;
        const apps = new Set(rows.map((x) => x.app));
        for (const want of ['postresp-lane', 'postresp-script', 'postresp-bus', 'postresp-primary']) assert.ok(apps.has(want), `${want} in ${[...apps].join(' ')}`);
        assert.deepEqual(rows.filter((x) => !x.ssl), [], 'a backend without TLS');
      } finally {
        await c.end();
      }
    });
  });

  it('verify-full against another CA: the start fails with a clear error', async () => {
    const out = await refused(`sslmode=verify-full&sslrootcert=${encodeURIComponent(certs.strangerCert)}`);
    assert.match(out, /server exited with 1/);
    assert.match(out, /PostgreSQL at 127\.0\.0\.1:\d+ sent a certificate that fails the sslmode check: self-signed certificate in certificate chain/);
  });

  it('sslmode=disable: refused by the server (hostssl only)', async () => {
    const out = await refused('sslmode=disable');
    assert.match(out, /no pg_hba\.conf entry .*no encryption/);
  });

  it('sslmode=require: encrypted without verifying the server, as libpq (no sslrootcert)', async () => {
    const s = await run('sslmode=require');
    await setGet(s, 'k2', 'required');
  });

  it('client certificate: sslcert/sslkey let in the user they name; without them the hba refuses', async () => {
    const c = await admin();
    await c.query('CREATE DATABASE certdb');
    await c.end();
    const cert = path.join(certs.dir, 'pguser');
    const base = `sslmode=verify-full&sslrootcert=${encodeURIComponent(certs.ca)}`;
    await setGet(await run(`${base}&sslcert=${encodeURIComponent(cert + '.crt')}&sslkey=${encodeURIComponent(cert + '.key')}`, 'certdb'), 'k3', 'certified');
    assert.match(await refused(base, 'certdb'), /connection requires a valid client certificate/);
  });
});
