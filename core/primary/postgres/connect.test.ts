import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { testPgUrl, withPg } from '../../../test/support/pg';
import { checkConnection, describePgUrl, nodePostgresUrl, resolvePgTarget } from './connect';
import { PostgresSetupError } from './errors';

describe('resolvePgTarget', () => {
  it('prefers --pg-url, then DATABASE_URL, then PG* variables, else embedded', () => {
    const env = { DATABASE_URL: 'postgres://d/db', PGHOST: 'h' };
    assert.deepEqual(resolvePgTarget('postgres://f/db', env), { url: 'postgres://f/db', source: '--pg-url' });
    assert.deepEqual(resolvePgTarget(undefined, env), { url: 'postgres://d/db', source: 'DATABASE_URL' });
    assert.equal(resolvePgTarget(undefined, {}), undefined);
    assert.equal(resolvePgTarget(undefined, { PGUSER: 'u', PGPASSWORD: 'p' }), undefined); // psql habits only
  });

  it('builds a URL from PG* variables', () => {
    assert.equal(resolvePgTarget(undefined, { PGHOST: 'db.local', PGPORT: '5433', PGUSER: 'u', PGPASSWORD: 'p@ss', PGDATABASE: 'kv' })?.url,
      'postgres://u:p%40ss@db.local:5433/kv');
    assert.equal(resolvePgTarget(undefined, { PGHOST: '/var/run/postgresql', PGPORT: '5433', PGDATABASE: 'kv' })?.url,
      'postgres:///kv?host=%2Fvar%2Frun%2Fpostgresql&port=5433');
    assert.equal(resolvePgTarget(undefined, { PGDATABASE: 'kv' })?.source, 'PG* variables');
  });

  it('describes a URL without its password', () => {
    assert.equal(describePgUrl('postgres://u:secret@127.0.0.1:5433/kv'), 'u@127.0.0.1:5433/kv');
  });
});

describe('checkConnection', () => {
  const url = new URL(testPgUrl());
  const role = `postresp_t_${process.pid}`;
  const db = `postresp_t_${process.pid}`;
  after(() => withPg(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${db}`);
    await c.query(`DROP ROLE IF EXISTS ${role}`);
  }));

  const variant = (change: (u: URL) => void): string => {
    const u = new URL(url.href);
    change(u);
    return u.href;
  };

  it('connects to the test server', async () => {
    assert.match((await checkConnection(url.href)).serverVersion, /^\d+/);
  });

  it('reports an unreachable server with host:port and what to do', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p)); // now nothing listens there
      });
    });
    await assert.rejects(checkConnection(`postgres://u:p@127.0.0.1:${port}/x`), (err: PostgresSetupError) => {
      assert.equal(err.code, 'POSTRESP_ERR_PG_UNREACHABLE');
      assert.match(err.message, new RegExp(`^cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED.*--pg-url`));
      return true;
    });
  });

  it('reports a wrong password (28P01)', async (t) => {
    await withPg(async (c) => {
      await c.query(`DROP ROLE IF EXISTS ${role}`);
      await c.query(`CREATE ROLE ${role} LOGIN PASSWORD 'right-one'`);
    });
    const wrong = variant((u) => { u.username = role; u.password = 'wrong-one'; });
    const accepted = await checkConnection(wrong).then(() => true, (err) => {
      assert.equal(err.code, 'POSTRESP_ERR_PG_AUTH');
      assert.match(err.message, new RegExp(`refused user "${role}".*password authentication failed`));
      return false;
    });
    if (accepted) t.skip('this server trusts connections from here: no password check to test');
  });

  it('reports a missing database (3D000)', async () => {
    const missing = variant((u) => { u.pathname = '/no_such_db_postresp'; });
    await assert.rejects(checkConnection(missing), (err: PostgresSetupError) => {
      assert.equal(err.code, 'POSTRESP_ERR_PG_NO_DATABASE');
      assert.match(err.message, /database "no_such_db_postresp" does not exist on .*createdb no_such_db_postresp/);
      return true;
    });
  });

  it('reports a missing CONNECT privilege (42501)', async () => {
    await withPg(async (c) => {
      await c.query(`DROP ROLE IF EXISTS ${role}`);
      await c.query(`CREATE ROLE ${role} LOGIN PASSWORD 'right-one'`);
      await c.query(`CREATE DATABASE ${db}`);
      await c.query(`REVOKE CONNECT ON DATABASE ${db} FROM PUBLIC`);
    });
    const denied = variant((u) => { u.username = role; u.password = 'right-one'; u.pathname = `/${db}`; });
    await assert.rejects(checkConnection(denied), (err: PostgresSetupError) => {
      assert.equal(err.code, 'POSTRESP_ERR_PG_PRIVILEGE');
      assert.match(err.message, new RegExp(`user "${role}" lacks a privilege .*permission denied for database.*GRANT CONNECT`));
      return true;
    });
  });
});

describe('nodePostgresUrl', () => {
  it('gives node-postgres libpq\'s sslmode meaning; URLs without sslmode are kept', () => {
    assert.equal(nodePostgresUrl('postgres://u@h/db?sslmode=require'), 'postgres://u@h/db?sslmode=require&uselibpqcompat=true');
    assert.equal(nodePostgresUrl('postgres://u@h/db'), 'postgres://u@h/db');
    assert.equal(nodePostgresUrl('postgres://u@h/db?sslmode=require&uselibpqcompat=false'), 'postgres://u@h/db?sslmode=require&uselibpqcompat=false');
  });
});
