// NativePgConnection against the shared test Postgres (DATABASE_URL).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { PgAbortedError, PgConnectionError, PgServerError } from './errors';
import { NativePgConnection } from './native-conn';

const url = process.env.DATABASE_URL ?? '';
const skip = url ? false : 'DATABASE_URL is not set (run `npm test`)';

describe('NativePgConnection', { skip }, () => {
  let conn: NativePgConnection;
  before(async () => {
    conn = await NativePgConnection.connect(url);
  });
  after(() => conn.close());

  test('binary parameters and results round-trip', async () => {
    const bytes = Buffer.from([0, 1, 0x7f, 0x80, 0xff]);
    const r = await conn.query(
      'SELECT $1::bytea, $2::text, $3::int8, $4::int4, $5::bool, NULL::bytea, $6::bytea[], $7::text[], $8::int8[], $9::bytea',
      [bytes, 'héllo', 2 ** 40 + 3, '-7', true, [Buffer.from('a'), null, Buffer.alloc(0)], ['x', 'ÿ'], [1, -2, 3n], Buffer.alloc(0)],
    );
    assert.equal(r.rowCount, 1);
    assert.equal(r.columnCount, 10);
    assert.deepEqual(r.value(0, 0), bytes);
    assert.equal(r.text(0, 1), 'héllo');
    assert.equal(r.int(0, 2), 2 ** 40 + 3);
    assert.equal(r.bigint(0, 2), 2n ** 40n + 3n);
    assert.equal(r.int(0, 3), -7);
    assert.equal(r.bool(0, 4), true);
    assert.equal(r.value(0, 5), null);
    assert.equal(r.isNull(0, 5), true);
    assert.deepEqual(r.value(0, 9), Buffer.alloc(0));
    assert.equal(r.isNull(0, 9), false);
    // arrays come back in binary array format; let the server render them as text to compare
    const t = await conn.query('SELECT $1::bytea[]::text, $2::text[]::text, $3::int8[]::text', [
      [Buffer.from('a'), null, Buffer.alloc(0)], ['x', 'ÿ'], [1, -2, 3n]]);
    assert.deepEqual(t.rows().map((row) => row.map((v) => v?.toString())), [['{"\\\\x61",NULL,"\\\\x"}', '{x,ÿ}', '{1,-2,3}']]);
    assert.throws(() => r.value(1, 0), RangeError);
    const typed = await conn.query('SELECT $1::int2[]::text, $2::int4[]::text, $3::int8[]::text, $4::int2[]::text',
      [Int16Array.of(1, -2), Int32Array.of(70000), BigInt64Array.of(-(2n ** 62n)), new Int16Array(0) as never]);
    assert.deepEqual(typed.rows()[0].map((v) => v?.toString()), ['{1,-2}', '{70000}', `{${-(2n ** 62n)}}`, '{}']);
  });

  test('unnest of bytea[] parameters inserts and reads many rows in one statement', async () => {
    await conn.query('CREATE TEMP TABLE IF NOT EXISTS kv_unnest (key bytea PRIMARY KEY, value bytea)');
    const keys = Array.from({ length: 16 }, (_, i) => Buffer.from(`k${i}`));
    const values = keys.map(() => randomBytes(1024));
    const ins = await conn.query('INSERT INTO kv_unnest SELECT * FROM unnest($1::bytea[], $2::bytea[]) ' +
      'ON CONFLICT (key) DO UPDATE SET value = excluded.value', [keys, values]);
    assert.equal(ins.affected, 16);
    const sel = await conn.query('SELECT key, value FROM kv_unnest WHERE key = ANY($1::bytea[]) ORDER BY key', [keys]);
    const got = new Map(sel.rows().map(([k, v]) => [k!.toString(), v]));
    keys.forEach((k, i) => assert.deepEqual(got.get(k.toString()), values[i]));
    // 2 MB of array parameters: the encoder grows past its kept size and gives it back
    const many = Array.from({ length: 2000 }, (_, i) => Buffer.from(`m${i}`));
    const big = await conn.query('SELECT sum(length(v))::int8 FROM unnest($1::bytea[]) v', [many.map(() => randomBytes(1024))]);
    assert.equal(big.int(0, 0), 2000 * 1024);
  });

  test('libpq keywords override the URL', async () => {
    const c = await NativePgConnection.connect(url, { libpq: { application_name: 'postresp-driver-test', options: '-c work_mem=7MB' } });
    try {
      const r = await c.query("SELECT current_setting('application_name'), current_setting('work_mem')");
      assert.deepEqual([r.text(0, 0), r.text(0, 1)], ['postresp-driver-test', '7MB']);
    } finally {
      await c.close();
    }
  });

  test('a pipeline of 10,000 statements is answered in order', async () => {
    const n = 10_000;
    const seen: number[] = [];
    const done = new Promise<void>((resolve, reject) => {
      for (let i = 0; i < n; i++) {
        conn.send('SELECT $1::int4 * 2', [i], (err, res) => {
          if (err) return reject(err);
          seen.push(res!.int(0, 0)!);
          if (seen.length === n) resolve();
        });
        if (i % 1000 === 999) conn.sync(); // ten sync groups
      }
    });
    assert.ok(conn.pending > n, 'all statements in flight at once');
    await done;
    assert.deepEqual(seen, Array.from({ length: n }, (_, i) => i * 2));
  });

  test('10 MB bytea round trip is byte-exact', async () => {
    const big = randomBytes(10 * 1024 * 1024);
    const r = await conn.query('SELECT $1::bytea, md5($1::bytea)', [big]);
    assert.equal(r.length(0, 0), big.length);
    assert.ok(r.value(0, 0)!.equals(big));
    assert.equal(r.text(0, 1), (await import('node:crypto')).createHash('md5').update(big).digest('hex'));
  });

  test('SQL error: SQLSTATE and message; the rest of its sync group is skipped, the next group runs', async () => {
    const p1 = conn.query('SELECT 1::int4');
    const p2 = conn.query('SELECT 1 / $1::int4', [0]);
    const p3 = conn.query('SELECT 3::int4');
    conn.sync();
    const p4 = conn.query('SELECT 4::int4');
    conn.sync();
    assert.equal((await p1).int(0, 0), 1);
    await assert.rejects(p2, (err: PgServerError) => {
      assert.ok(err instanceof PgServerError);
      assert.equal(err.code, '22012');
      assert.equal(err.message, 'division by zero');
      return true;
    });
    await assert.rejects(p3, (err: PgAbortedError) => err instanceof PgAbortedError && err.code === 'POSTRESP_ERR_PG_ABORTED' &&
      (err.cause as PgServerError).code === '22012');
    assert.equal((await p4).int(0, 0), 4);
  });

  test('a statement that fails to prepare reports its own error, every time it is used', async () => {
    const bad = 'SELEC 1';
    const a = conn.query(bad);
    const ok = conn.query('SELECT 5::int4');
    conn.sync();
    await assert.rejects(a, { code: '42601', message: 'syntax error at or near "SELEC"' });
    await assert.rejects(ok, PgAbortedError);
    await assert.rejects(conn.query(bad), { code: '42601' });
    await assert.rejects(conn.query('SELECT $1::int4', ['nope']), { code: '22P02' });
    assert.equal((await conn.query('SELECT 6::int4')).int(0, 0), 6);
    assert.equal((await conn.query('SELECT 7::int4', [], { prepare: false })).int(0, 0), 7);
  });

  test('bad parameters are reported for that statement only', async () => {
    await assert.rejects(conn.query('SELECT $1::bytea[]', [[Buffer.from('a'), 'b'] as never]), { code: 'POSTRESP_ERR_PG_PARAM' });
    await assert.rejects(conn.query('SELECT $1', [{} as never]), { code: 'POSTRESP_ERR_PG_PARAM' });
    await assert.rejects(conn.query('SELECT $1::text', ['a\0b']), { code: 'POSTRESP_ERR_PG_PARAM' });
    assert.equal((await conn.query('SELECT 8::int4')).int(0, 0), 8);
  });

  test('backend terminated mid-pipeline: every pending statement fails, onClose fires, a new connection works', async () => {
    const victim = await NativePgConnection.connect(url);
    const closed = new Promise<Error | undefined>((resolve) => (victim.onClose = resolve));
    const pending = [victim.query('SELECT pg_sleep(5)')];
    for (let i = 0; i < 1000; i++) pending.push(victim.query('SELECT $1::int4', [i]));
    victim.sync();
    const settled = Promise.allSettled(pending);
    await new Promise((r) => setTimeout(r, 100));
    const killed = await conn.query('SELECT pg_terminate_backend($1)', [victim.backendPid]);
    assert.equal(killed.bool(0, 0), true);
    const results = await settled;
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.ok((r as PromiseRejectedResult).reason instanceof PgConnectionError);
      assert.equal((r as PromiseRejectedResult).reason.code, 'POSTRESP_ERR_PG_CONNECTION');
    }
    // The server's FATAL 57P01 when it was read before the socket closed, else libpq's own words
    const first = (results[0] as PromiseRejectedResult).reason as PgConnectionError;
    assert.ok(first.sqlState === '57P01' || /closed|reset|lost/i.test(first.message), first.message);
    assert.ok((await closed) instanceof PgConnectionError);
    assert.equal(victim.closed, true);
    await assert.rejects(victim.query('SELECT 1'), PgConnectionError);
    const again = await NativePgConnection.connect(url);
    assert.equal((await again.query('SELECT 9::int4')).int(0, 0), 9);
    await again.close();
  });

  test('close() fails pending statements and is idempotent', async () => {
    const c = await NativePgConnection.connect(url);
    let closeArg: unknown = 'not called';
    c.onClose = (err) => (closeArg = err);
    const p = c.query('SELECT pg_sleep(1)');
    await c.close();
    await c.close();
    await assert.rejects(p, { code: 'POSTRESP_ERR_PG_CONNECTION', message: 'connection closed by client' });
    assert.equal(closeArg, undefined);
  });

  test('sync(cb) answers after the group committed, after its statements; fails with the connection', async () => {
    const c = await NativePgConnection.connect(url);
    const seen: string[] = [];
    await c.query('CREATE TEMP TABLE sync_cb (x int)');
    await new Promise<void>((resolve) => {
      c.send('INSERT INTO sync_cb VALUES (1)', [], (err) => seen.push(`insert ${err?.message ?? 'ok'}`));
      c.send('SELECT 1/0', [], (err) => seen.push(`div ${err ? 'error' : 'ok'}`));
      c.sync((err) => {
        seen.push(`sync ${err?.message ?? 'ok'}`);
        resolve();
      });
    });
    assert.deepEqual(seen, ['insert ok', 'div error', 'sync ok']);
    // the failed group rolled back, so the insert acknowledged before the Sync is not there
    assert.equal((await c.query('SELECT count(*)::int4 FROM sync_cb')).int(0, 0), 0);
    const lost = new Promise<Error | null>((resolve) => {
      c.send('SELECT pg_sleep(5)', [], () => undefined);
      c.sync(resolve);
    });
    await c.close();
    assert.equal((await lost)?.message, 'connection closed by client');
    const late = await new Promise<Error | null>((resolve) => c.sync(resolve));
    assert.equal(late?.message, 'connection closed by client');
  });

  test('unreachable server: a clean error, no hang', async () => {
    const refused = url.replace(/@[^/]+\//, '@127.0.0.1:1/');
    await assert.rejects(NativePgConnection.connect(refused), (err: PgConnectionError) =>
      err instanceof PgConnectionError && /could not connect to Postgres: .*(refused|1)/s.test(err.message));
    // 192.0.2.0/24 is TEST-NET-1 (never routed): either a quick network error or our timeout
    const t0 = Date.now();
    await assert.rejects(NativePgConnection.connect('postgres://u@192.0.2.1:5432/db', { connectTimeoutMs: 300 }), PgConnectionError);
    assert.ok(Date.now() - t0 < 5000);
    await assert.rejects(NativePgConnection.connect('postgres://u@127.0.0.1:1/db?sslmode=bogus'), /sslmode/);
  });

  test('an idle connection dropped without close() is finalized and its backend ends', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let pid = 0;
    await (async () => {
      const lost = await NativePgConnection.connect(url);
      pid = lost.backendPid;
      await lost.query('SELECT 1');
    })();
    const alive = async () => (await conn.query('SELECT count(*)::int4 FROM pg_stat_activity WHERE pid = $1', [pid])).int(0, 0);
    assert.equal(await alive(), 1);
    for (let i = 0; i < 50 && (await alive()) === 1; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(await alive(), 0);
  });
});

describe('worker threads', { skip }, () => {
  const workerCode = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { NativePgConnection } = require(workerData.module);
    (async () => {
      const a = await NativePgConnection.connect(workerData.url);
      const b = await NativePgConnection.connect(workerData.url);
      const ra = a.query('SELECT pg_backend_pid(), $1::int4', [workerData.n]);
      const rb = b.query('SELECT pg_backend_pid(), $1::int4', [workerData.n + 1]);
      const [x, y] = await Promise.all([ra, rb]);
      parentPort.postMessage([x.int(0, 0), x.int(0, 1), y.int(0, 0), y.int(0, 1)]);
      if (workerData.leave) { a.query('SELECT pg_sleep(0.5)'); parentPort.postMessage('pending'); return; }
      await a.close(); await b.close();
    })().catch((e) => { parentPort.postMessage(String(e && e.stack)); });`;
  const moduleFile = path.join(__dirname, 'native-conn.js');
  const start = (n: number, leave = false) =>
    new Worker(workerCode, { eval: true, workerData: { url, module: moduleFile, n, leave } });

  test('two workers each load the addon and use two connections', async () => {
    const workers = [start(10), start(20)];
    const exits = workers.map((w) => once(w, 'exit'));
    const answers = await Promise.all(workers.map(async (w) => (await once(w, 'message'))[0]));
    assert.deepEqual((await Promise.all(exits)).map(([code]) => code), [0, 0]);
    for (const [i, a] of answers.entries()) {
      assert.ok(Array.isArray(a), String(a));
      assert.equal(a[1], 10 * (i + 1));
      assert.equal(a[3], 10 * (i + 1) + 1);
      assert.notEqual(a[0], a[2]);
    }
    assert.equal(new Set(answers.flatMap((a) => [a[0], a[2]])).size, 4);
  });

  test('a throwing callback does not starve the callbacks after it', async () => {
    const w = new Worker(`
      const { parentPort, workerData } = require('node:worker_threads');
      const { NativePgConnection } = require(workerData.module);
      const seen = [];
      process.on('uncaughtException', (e) => seen.push('uncaught ' + e.message));
      NativePgConnection.connect(workerData.url).then((c) => {
        c.send('SELECT 1::int4', [], () => { throw new Error('boom'); });
        c.send('SELECT 2::int4', [], (e, r) => seen.push(r.int(0, 0)));
        c.send('SELECT 3::int4', [], (e, r) => { seen.push(r.int(0, 0)); setImmediate(() => { parentPort.postMessage(seen); c.close(); }); });
      });`, { eval: true, workerData: { url, module: moduleFile } });
    const [seen] = await once(w, 'message');
    assert.deepEqual(seen, [2, 3, 'uncaught boom']);
    await w.terminate();
  });

  test('terminating a worker with a statement in flight closes its connections cleanly', async () => {
    const w = start(30, true);
    const messages: unknown[] = [];
    const pending = new Promise<void>((resolve) => w.on('message', (m) => messages.push(m) === 2 && resolve()));
    await pending;
    const [pids, note] = messages as [number[], string];
    assert.ok(Array.isArray(pids), String(pids));
    assert.equal(note, 'pending');
    await w.terminate(); // the async cleanup hook must close the uv_poll, or Node aborts here
    const c = await NativePgConnection.connect(url);
    try {
      for (let i = 0; i < 100; i++) {
        const r = await c.query('SELECT count(*)::int4 FROM pg_stat_activity WHERE pid = ANY($1::int8[])', [[pids[0], pids[2]]]);
        if (r.int(0, 0) === 0) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.fail('backends of the terminated worker are still connected');
    } finally {
      await c.close();
    }
  });
});
