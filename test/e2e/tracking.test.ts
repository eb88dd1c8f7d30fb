/**
 * End to end: CLIENT TRACKING where the differential test (one worker) cannot look — a write on
 * another worker or on another PostRESP instance invalidates; a REDIRECT target on another
 * worker; tracking-table-max-keys evicts by invalidating; and node-redis's client-side cache
 * (the `redis` package, RESP3 `clientSideCache`) driven through its real API: a GET served from
 * its cache, a write from another client, the next GET sees the new value.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BasicClientSideCache, createClient } from 'redis';
import { encode, RawClient, type Value } from './resp-client';
import { startServer, type RunningServer } from './start-server';
import { twoInstances } from './two-instances';
import { withPg } from '../support/pg';

const two = twoInstances('tracking_two', ['--workers', '2', '--storage-mode', 'unlogged', '--enable-debug-command', 'local']);

async function resp3(port: number, ...tracking: string[]): Promise<RawClient> {
  const c = await RawClient.connect(port);
  await c.call('HELLO', '3');
  if (tracking.length > 0) assert.equal(await c.call('CLIENT', 'TRACKING', ...tracking), 'OK');
  return c;
}

/** CLIENT LIST's worker is not shown: a connection's id and its worker's, through INFO of each */
async function clientsOnTwoWorkers(port: number): Promise<[RawClient, RawClient, RawClient[]]> {
  // the primary hands each new connection to the worker with the fewest: two in a row differ
  const opened: RawClient[] = [];
  const first = await RawClient.connect(port);
  const second = await RawClient.connect(port);
  opened.push(first, second);
  return [first, second, opened];
}

/**
 * Whether a and b are served by different worker threads: DEBUG SLEEP on a stops only a's worker
 * (the server needs --enable-debug-command), so b's PING is answered meanwhile.
 */
async function apart(a: RawClient, b: RawClient): Promise<boolean> {
  a.send(encode('DEBUG', 'SLEEP', '0.5'));
  await new Promise((r) => setTimeout(r, 50)); // a's worker is asleep now
  const t0 = Date.now();
  await b.call('PING');
  const ms = Date.now() - t0;
  assert.deepEqual(await a.read(1), ['OK']);
  return ms < 300;
}

/** n connections on n different worker threads, each checked against the others (apart). */
async function onWorkers(port: number, n: number): Promise<[RawClient[], RawClient[]]> {
  const picked: RawClient[] = [];
  const opened: RawClient[] = [];
  for (let i = 0; i < 4 * n && picked.length < n; i++) {
    const next = await RawClient.connect(port);
    opened.push(next);
    let ok = true;
    for (const p of picked) if (!(ok = await apart(p, next))) break;
    if (ok) picked.push(next);
  }
  if (picked.length < n) {
    for (const c of opened) c.close();
    throw new Error(`no ${n} connections on different workers`);
  }
  return [picked, opened];
}

describe('CLIENT TRACKING REDIRECT to a third worker (--workers 3)', () => {
  let three: RunningServer;
  before(async () => { three = await startServer(['--workers', '3', '--storage-mode', 'unlogged', '--enable-debug-command', 'local']); });
  after(async () => { await three?.stop(); });

  it('the redirect target has the invalidation before the writer has its reply, writer on a third worker or on the tracking client\'s; BCAST too', async () => {
    const [[tracker, target, writer], opened] = await onWorkers(three.port, 3);
    try {
      // a second writer on the tracking client's worker (the redirect's hop starts there), and a
      // connection on the target's worker to hold that worker asleep while the write is answered
      let near: RawClient | undefined;
      let sleeper: RawClient | undefined;
      for (let i = 0; i < 12 && (near === undefined || sleeper === undefined); i++) {
        const c = await RawClient.connect(three.port);
        opened.push(c);
        if (near === undefined && !(await apart(tracker, c))) near = c;
        else if (sleeper === undefined && !(await apart(target, c))) sleeper = c;
      }
      assert.ok(near !== undefined && sleeper !== undefined, 'connections on the tracking client\'s and the target\'s workers');
      const id = await target.call('CLIENT', 'ID');
      await target.call('SUBSCRIBE', '__redis__:invalidate');
      assert.equal(await tracker.call('CLIENT', 'TRACKING', 'on', 'REDIRECT', String(id)), 'OK');
      const late = { third: 0, near: 0 };
      for (let i = 0; i < 40; i++) {
        const key = `redir3:${i}`;
        const by = i % 2 === 0 ? 'third' : 'near';
        assert.equal(await tracker.call('GET', key), null);
        const had = target.raw.length;
        // the target's worker is busy when the write commits: its reply must wait for that worker
        sleeper.send(encode('DEBUG', 'SLEEP', '0.05'));
        await new Promise((r) => setTimeout(r, 10));
        const w: RawClient = by === 'third' ? writer : near;
        w.send(encode('SET', key, 'v'));
        assert.deepEqual(await w.read(1), ['OK']);
        // what the server sent the target before the writer's reply is in this process's socket
        // buffer now: the next poll phase (two setImmediates on) has read it
        await new Promise(setImmediate);
        await new Promise(setImmediate);
        if (target.raw.length === had) late[by]++;
        assert.deepEqual(await target.read(1), [['message', '__redis__:invalidate', [key]]]);
        assert.deepEqual(await sleeper.read(1), ['OK']);
      }
      assert.deepEqual(late, { third: 0, near: 0 }, 'writers that had their reply before the redirect target had its invalidation (of 20 each)');
      // BCAST: the tracking client's worker sends the turn's keys when the write's fence comes, not a turn later
      assert.equal(await tracker.call('CLIENT', 'TRACKING', 'off'), 'OK');
      assert.equal(await tracker.call('CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'bc:', 'REDIRECT', String(id)), 'OK');
      let lateBcast = 0;
      for (let i = 0; i < 10; i++) {
        const key = `bc:${i}`;
        const had = target.raw.length;
        sleeper.send(encode('DEBUG', 'SLEEP', '0.05'));
        await new Promise((r) => setTimeout(r, 10));
        writer.send(encode('SET', key, 'v'));
        assert.deepEqual(await writer.read(1), ['OK']);
        await new Promise(setImmediate);
        await new Promise(setImmediate);
        if (target.raw.length === had) lateBcast++;
        assert.deepEqual(await target.read(1), [['message', '__redis__:invalidate', [key]]]);
        assert.deepEqual(await sleeper.read(1), ['OK']);
      }
      assert.equal(lateBcast, 0, `${lateBcast} of 10 BCAST writers had their reply before the redirect target had its keys`);
    } finally {
      for (const c of opened) c.close();
    }
  });
});

describe('CLIENT TRACKING across workers and instances', () => {
  it('a write on the other worker of the process, and on another instance, invalidates a RESP3 client', async () => {
    const [reader, writer, opened] = await clientsOnTwoWorkers(two.a.port);
    const other = await RawClient.connect(two.b.port);
    try {
      await reader.call('HELLO', '3');
      assert.equal(await reader.call('CLIENT', 'TRACKING', 'on'), 'OK');
      await writer.call('SET', 'tw:k', '1');
      assert.equal(await reader.call('GET', 'tw:k'), '1');
      await writer.call('SET', 'tw:k', '2');
      assert.deepEqual(await reader.read(1), [{ push: ['invalidate', ['tw:k']] }]);
      assert.equal(await reader.call('GET', 'tw:k'), '2');
      await other.call('INCR', 'tw:n');
      assert.equal(await reader.call('GET', 'tw:k'), '2'); // tracked again
      assert.equal(await reader.call('GET', 'tw:n'), '1');
      await other.call('APPEND', 'tw:k', 'x');
      await other.call('DEL', 'tw:n');
      const got = await reader.read(2) as { push: Value[] }[];
      assert.deepEqual(got.map((m) => String(m.push[1])).sort(), ['tw:k', 'tw:n']);
      // a flush on the other instance: a null invalidation
      await other.call('FLUSHDB');
      assert.deepEqual(await reader.read(1), [{ push: ['invalidate', null] }]);
    } finally {
      for (const c of [...opened, other]) c.close();
    }
  });

  it('RESP2 REDIRECT to a subscribed connection on the other worker; the redirect breaks when it closes', async () => {
    const [tracker, target, opened] = await clientsOnTwoWorkers(two.a.port);
    const writer = await RawClient.connect(two.b.port);
    try {
      const id = await target.call('CLIENT', 'ID');
      await target.call('SUBSCRIBE', '__redis__:invalidate');
      assert.equal(await tracker.call('CLIENT', 'TRACKING', 'on', 'REDIRECT', String(id)), 'OK');
      assert.equal(await tracker.call('CLIENT', 'GETREDIR'), id);
      await tracker.call('GET', 'rd:k');
      await writer.call('SET', 'rd:k', 'v');
      assert.deepEqual(await target.read(1), [['message', '__redis__:invalidate', ['rd:k']]]);
      await tracker.call('HELLO', '3');
      await tracker.call('GET', 'rd:k');
      target.close();
      await target.waitClosed();
      await new Promise((r) => setTimeout(r, 100));
      await writer.call('SET', 'rd:k', 'w');
      assert.deepEqual(await tracker.read(1), [{ push: ['tracking-redir-broken', id] }]);
      const info = await tracker.call('CLIENT', 'TRACKINGINFO') as { map: [Value, Value][] };
      assert.deepEqual(info.map[0], ['flags', { set: ['on', 'broken_redirect'] }]);
    } finally {
      for (const c of [...opened, writer]) c.close();
    }
  });

  it('a tracking client on the other worker has its invalidation before the writer has its reply (Redis order)', async () => {
    const [[reader, writer], opened] = await onWorkers(two.a.port, 2);
    try {
      await reader.call('HELLO', '3');
      assert.equal(await reader.call('CLIENT', 'TRACKING', 'on'), 'OK');
      let late = 0;
      for (let i = 0; i < 40; i++) {
        const key = `order:${i}`;
        assert.equal(await reader.call('GET', key), null);
        const had = reader.raw.length;
        writer.send(encode('SET', key, 'v'));
        assert.deepEqual(await writer.read(1), ['OK']);
        // a push the server sent before the writer's reply is in this process's socket buffer
        // now: the next poll phase of the event loop (two setImmediates on) has read it
        await new Promise(setImmediate);
        await new Promise(setImmediate);
        if (reader.raw.length === had) late++;
        assert.deepEqual(await reader.read(1), [{ push: ['invalidate', [key]] }]);
      }
      assert.equal(late, 0, `${late} of 40 writers had their reply before the reader on the other worker had its invalidation`);
    } finally {
      for (const c of opened) c.close();
    }
  });

  it('the bus link to the other instances lost and back: every tracking client gets a null invalidation', async () => {
    const c = await resp3(two.a.port, 'on');
    const admin = await RawClient.connect(two.a.port);
    try {
      assert.equal(await c.call('GET', 'rc:k'), null);
      const runId = /run_id:([0-9a-f]+)/.exec(String(await admin.call('INFO', 'server')))![1]!;
      const killed = await withPg(async (pg) => (await pg.query(
        `SELECT pg_terminate_backend(pid) AS ok FROM "${two.schema}".bus_instances WHERE instance = $1`, [runId.slice(0, 16)])).rows.length);
      assert.equal(killed, 1);
      // what the other instance wrote while the link was down was not seen here: flush everything
      assert.deepEqual(await c.read(1, 15000), [{ push: ['invalidate', null] }]);
    } finally {
      c.close();
      admin.close();
    }
  });

  it('tracking-table-max-keys: lowering it invalidates the keys over the limit, INFO counts what is left', async () => {
    const c = await resp3(two.a.port, 'on');
    const admin = await RawClient.connect(two.a.port);
    try {
      await admin.call('CONFIG', 'SET', 'tracking-table-max-keys', '0');
      c.send(Buffer.concat(Array.from({ length: 50 }, (_, i) => Buffer.from(`*2\r\n$3\r\nGET\r\n$${`ev:${i}`.length}\r\nev:${i}\r\n`))));
      await c.read(50);
      // two workers: each keeps ceil(10 / 2) = 5 keys
      await admin.call('CONFIG', 'SET', 'tracking-table-max-keys', '10');
      const evicted = await c.read(45) as { push: [string, string[]] }[];
      assert.deepEqual(evicted.map((m) => m.push[1][0]), Array.from({ length: 45 }, (_, i) => `ev:${i}`));
      const info = String(await admin.call('INFO', 'stats'));
      assert.match(info, /tracking_total_keys:5\r\n/);
      assert.match(String(await admin.call('INFO', 'clients')), /tracking_clients:1\r\n/);
    } finally {
      await admin.call('CONFIG', 'SET', 'tracking-table-max-keys', '1000000');
      c.close();
      admin.close();
    }
  });

  it('node-redis client-side cache (RESP3 clientSideCache): a cached GET, a write elsewhere, the next GET sees it', async () => {
    const cache = new BasicClientSideCache({ ttl: 0, maxEntries: 100 });
    const cached = createClient({ url: `redis://127.0.0.1:${two.a.port}`, RESP: 3, clientSideCache: cache });
    const plain = createClient({ url: `redis://127.0.0.1:${two.b.port}` });
    await Promise.all([cached.connect(), plain.connect()]);
    try {
      await plain.set('csc:k', 'one');
      // the SET's own invalidation, through Postgres from the other instance, may land after the
      // first GET cached it (a needless one, never a stale read): read until a GET is a hit
      for (let i = 0; i < 100 && cache.stats().hitCount === 0; i++) {
        assert.equal(await cached.get('csc:k'), 'one');
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(cache.stats().hitCount >= 1, 'a GET came from the cache');
      const misses = cache.stats().missCount;
      const invalidated = new Promise((r) => cache.once('invalidate', r));
      await plain.set('csc:k', 'two'); // on the other instance
      await invalidated;
      assert.equal(await cached.get('csc:k'), 'two');
      assert.equal(cache.stats().missCount, misses + 1, 'the GET after the invalidation went to the server');
    } finally {
      await Promise.all([cached.quit(), plain.quit()]);
    }
  });
});
