/**
 * The exact read cache (docs/cache.md) from outside: a recorded history of clients on several
 * worker threads writing and reading a few keys holds no read older than a write acknowledged
 * before it began; every kind of write another client makes is seen by the next GET of a cached
 * key; a second instance on the schema turns the cache off (and its writes are seen); a crashed
 * and restarted Postgres (unlogged: emptied) leaves no entry behind.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encode, RawClient, type Value } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';

const schema = uniqueSchema('cache');
let a: RunningServer;

before(async () => {
  // no --cache: the default is exclusive (on while alone on the schema)
  a = await startServer(['--cache', 'exclusive', '--workers', '2', '--storage-mode', 'unlogged', '--enable-debug-command', 'yes'], { schema });
});
after(async () => {
  await a?.stop();
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`))).catch(() => undefined);
});

async function cacheInfo(port: number): Promise<Record<string, number>> {
  const c = await RawClient.connect(port);
  const text = String(await c.call('INFO', 'cache'));
  c.close();
  return Object.fromEntries([...text.matchAll(/^(cache_\w+):([\d.]+)/gm)].map((m) => [m[1], Number(m[2])]));
}

interface Event { client: number; kind: 'w' | 'r'; key: string; value: string | null; start: number; end: number }

/**
 * The model: each written value is unique, so a read names the write it saw (null: none yet).
 * A read is stale when a write w2 of its key was acknowledged before the read began and w2 began
 * after the seen write ended (so w2 follows it in every order), or when it saw nothing although
 * some write was acknowledged before it began; a read of a write that began after it ended
 * reads the future.
 */
function violations(history: Event[]): string[] {
  const writes = new Map<string, Event>();
  for (const e of history) if (e.kind === 'w') writes.set(e.value!, e);
  const out: string[] = [];
  for (const r of history) {
    if (r.kind !== 'r') continue;
    const seen = r.value === null ? undefined : writes.get(r.value);
    if (r.value !== null && seen === undefined) { out.push(`read ${r.key}=${r.value}: never written`); continue; }
    if (seen !== undefined && seen.start > r.end) out.push(`read ${r.key}=${r.value} before its write began`);
    for (const w of history) {
      if (w.kind !== 'w' || w.key !== r.key || w.end >= r.start) continue;
      if (seen === undefined || w.start > seen.end) {
        out.push(`read ${r.key}=${r.value} at ${r.start.toFixed(3)} though ${w.value} was acknowledged at ${w.end.toFixed(3)}`);
        break;
      }
    }
  }
  return out;
}

describe('read cache', () => {
  // batch-transaction yes: a batch's runs answer only after its one COMMIT (workers/storage/batch-tx.ts)
  for (const batchTx of ['yes', 'no']) it(`clients on two worker threads: no read older than a write acknowledged before it began (batch-transaction ${batchTx})`, async () => {
    const admin = await RawClient.connect(a.port);
    assert.equal(await admin.call('CONFIG', 'SET', 'batch-transaction', batchTx), 'OK');
    const keys = ['lin:a', 'lin:b', 'lin:c'];
    await admin.call('DEL', ...keys);
    admin.close();
    const n = 6;
    const cs = await Promise.all(Array.from({ length: n }, () => RawClient.connect(a.port)));
    const history: Event[] = [];
    const before0 = await cacheInfo(a.port);
    await Promise.all(cs.map(async (c, id) => {
      for (let i = 0; i < 300; i++) {
        const key = keys[(i * 7 + id) % keys.length];
        const start = performance.now();
        if ((i + id) % 4 === 0) {
          const value = `${id}:${i}`;
          assert.equal(await c.call('SET', key, value), 'OK');
          history.push({ client: id, kind: 'w', key, value, start, end: performance.now() });
        } else if (i % 5 === 0) {
          const vs = (await c.call('MGET', key, keys[0])) as (string | null)[];
          history.push({ client: id, kind: 'r', key, value: vs[0], start, end: performance.now() });
        } else {
          const value = (await c.call('GET', key)) as string | null;
          history.push({ client: id, kind: 'r', key, value, start, end: performance.now() });
        }
      }
    }));
    for (const c of cs) c.close();
    assert.deepEqual(violations(history), []);
    const after0 = await cacheInfo(a.port);
    assert.ok(after0.cache_hits > before0.cache_hits, 'the cache served some reads');
  });

  it('one copy per process: a key filled through one worker is a hit on the other', async () => {
    const w = await RawClient.connect(a.port);
    await w.call('SET', 'one:copy', 'v1');
    // the previous tests' connections must be gone: a connection goes to the worker with the
    // fewest, so with this one alone the next lands on the other worker
    for (let tries = 0; tries < 100 && !/connected_clients:1\r\n/.test(String(await w.call('INFO', 'clients'))); tries++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const other = await RawClient.connect(a.port);
    await other.call('PING');
    assert.equal(await w.call('GET', 'one:copy'), 'v1'); // first miss (the doorkeeper marks it)
    assert.equal(await other.call('GET', 'one:copy'), 'v1'); // second miss: filled on the other worker
    const before1 = await cacheInfo(a.port);
    assert.equal(await w.call('GET', 'one:copy'), 'v1');
    const after1 = await cacheInfo(a.port);
    assert.equal(after1.cache_hits - before1.cache_hits, 1, 'the first worker answered from the entry the other filled');
    assert.equal(after1.cache_fills, before1.cache_fills, 'no second fill');
    w.close();
    other.close();
  });

  it('the model finds a stale read', () => {
    const h: Event[] = [
      { client: 0, kind: 'w', key: 'k', value: '1', start: 0, end: 1 },
      { client: 0, kind: 'w', key: 'k', value: '2', start: 2, end: 3 },
      { client: 1, kind: 'r', key: 'k', value: '1', start: 4, end: 5 },
      { client: 1, kind: 'r', key: 'k', value: null, start: 4, end: 5 },
    ];
    assert.equal(violations(h).length, 2);
  });

  // [setup on the writer, the write, what GET k answers after it] for each kind of write
  const cases: [string, (string[])[], string[], Value][] = [
    ['FLUSHALL', [], ['FLUSHALL'], null],
    ['FLUSHDB', [], ['FLUSHDB'], null],
    ['SWAPDB', [['SELECT', '1'], ['SET', 'k', 'one'], ['SELECT', '0']], ['SWAPDB', '0', '1'], 'one'],
    ['RENAME onto it', [['SET', 'src', 'renamed']], ['RENAME', 'src', 'k'], 'renamed'],
    ['RENAME away', [], ['RENAME', 'k', 'elsewhere'], null],
    ['MOVE', [], ['MOVE', 'k', '3'], null],
    ['COPY onto it', [['SET', 'src', 'copied']], ['COPY', 'src', 'k', 'REPLACE'], 'copied'],
    ['DEL', [], ['DEL', 'k'], null],
    ['APPEND', [], ['APPEND', 'k', '+'], 'v0+'],
    ['INCR', [['SET', 'k', '5']], ['INCR', 'k'], '6'],
    ['EXPIRE in the past', [], ['PEXPIREAT', 'k', '1'], null],
    ['EVAL', [], ['EVAL', "redis.call('set', KEYS[1], 'lua') return 1", '1', 'k'], 'lua'],
    ['EVAL undeclared', [], ['EVAL', "redis.call('set', 'k', 'lua2') return 1", '0'], 'lua2'],
    ['a type change', [], ['EVAL', "redis.call('del', 'k') redis.call('rpush', 'k', 'x') return 1", '0'],
      { error: 'WRONGTYPE Operation against a key holding the wrong kind of value' }],
    ['FCALL', [['FUNCTION', 'LOAD', 'REPLACE', "#!lua name=cachelib\nredis.register_function('setk', function(keys, args) return redis.call('set', keys[1], args[1]) end)"]],
      ['FCALL', 'setk', '1', 'k', 'fn'], 'fn'],
    ['into a stream', [['DEL', 'k']], ['XADD', 'k', '1-1', 'f', 'v'], { error: 'WRONGTYPE Operation against a key holding the wrong kind of value' }],
  ];
  for (const [name, setup, write, expected] of cases) {
    it(`sees ${name} from another client`, async () => {
      const reader = await RawClient.connect(a.port);
      const writer = await RawClient.connect(a.port);
      await writer.call('FLUSHALL');
      await writer.call('SET', 'k', 'v0');
      for (const cmd of setup) await writer.call(...cmd);
      // a key is kept on its second miss (the doorkeeper): the GET after that one is the hit
      await reader.call('GET', 'k');
      const hits = (await cacheInfo(a.port)).cache_hits;
      const first = await reader.call('GET', 'k');
      assert.deepEqual(await reader.call('GET', 'k'), first);
      assert.ok((await cacheInfo(a.port)).cache_hits > hits, 'the second GET was a hit');
      await writer.call(...write);
      assert.deepEqual(await reader.call('GET', 'k'), expected);
      assert.deepEqual(await reader.call('MGET', 'k'), [typeof expected === 'string' ? expected : null]);
      reader.close();
      writer.close();
    });
  }

  it('pipelined: hits ahead of a miss leave with it in order; nothing waits for a blocked BLPOP', async () => {
    const c = await RawClient.connect(a.port);
    const other = await RawClient.connect(a.port);
    try {
      await c.call('SET', 'pl:a', '1');
      await c.call('GET', 'pl:a');
      await c.call('GET', 'pl:a');
      const hits = (await cacheInfo(a.port)).cache_hits;
      c.send(Buffer.concat([encode('GET', 'pl:a'), encode('PING'), encode('GET', 'pl:none'), encode('GET', 'pl:a'), encode('MGET', 'pl:a', 'pl:none')]));
      assert.deepEqual(await c.read(5), ['1', 'PONG', null, '1', ['1', null]]);
      assert.ok((await cacheInfo(a.port)).cache_hits >= hits + 2, 'the GETs of pl:a were hits');
      // the replies ahead of a blocked command are not held for it (Client.holdForLane)
      c.send(Buffer.concat([encode('PING'), encode('GET', 'pl:a'), encode('BLPOP', 'pl:list', '0')]));
      assert.deepEqual(await c.read(2, 3000), ['PONG', '1']);
      await other.call('LPUSH', 'pl:list', 'x');
      assert.deepEqual(await c.read(1), [['pl:list', 'x']]);
    } finally {
      c.close();
      other.close();
    }
  });

  // a GET hit with nothing owed before it is copied from the arena straight into the client's
  // writer (ReadOp.sink); behind a reply still owed, silenced, or large, it is a reply as before
  it('hits written straight into the writer: in order behind a miss, over slab ends, silenced by CLIENT REPLY, in RESP3', async () => {
    const c = await RawClient.connect(a.port);
    try {
      const big = 'b'.repeat(10_000);
      await c.call('SET', 'dw:a', 'abc');
      await c.call('SET', 'dw:big', big);
      for (let i = 0; i < 2; i++) { await c.call('GET', 'dw:a'); await c.call('GET', 'dw:big'); }
      const hits = (await cacheInfo(a.port)).cache_hits;
      // behind a miss (a key never read: its GET goes to Postgres), then hits with nothing owed
      c.send(Buffer.concat([encode('GET', 'dw:none'), encode('GET', 'dw:a'), encode('GET', 'dw:big'), encode('GET', 'dw:a')]));
      assert.deepEqual(await c.read(4), [null, 'abc', big, 'abc']);
      // 30 hits of 10 KB in one read: the writer's 4 KB slab grows and its replies span chunks
      c.send(Buffer.concat(Array.from({ length: 30 }, (_, i) => encode('GET', i % 3 === 0 ? 'dw:a' : 'dw:big'))));
      assert.deepEqual(await c.read(30), Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 'abc' : big)));
      // CLIENT REPLY SKIP / OFF silence a hit as any reply
      c.send(Buffer.concat([encode('CLIENT', 'REPLY', 'SKIP'), encode('GET', 'dw:a'), encode('PING'),
        encode('CLIENT', 'REPLY', 'OFF'), encode('GET', 'dw:big'), encode('CLIENT', 'REPLY', 'ON'), encode('GET', 'dw:a')]));
      assert.deepEqual(await c.read(3), ['PONG', 'OK', 'abc']);
      assert.ok((await cacheInfo(a.port)).cache_hits >= hits + 3 + 30 + 3, 'the GETs of dw:a and dw:big were hits');
      await c.call('HELLO', '3');
      assert.equal(await c.call('GET', 'dw:a'), 'abc');
      assert.equal(await c.call('GET', 'dw:none'), null);
      c.send(Buffer.concat([encode('GET', 'dw:a'), encode('GET', 'dw:a')]));
      assert.deepEqual(await c.read(2), ['abc', 'abc']);
      c.send('PING\r\n');
      assert.deepEqual(await c.read(1, 3000), ['PONG'], 'nothing else came');
    } finally {
      c.close();
    }
  });

  // a write bumps the version table only once its outcome is known: the writer's own GET pipelined
  // behind it must not be answered from the entry it replaces (Session.unackedWrites)
  const own: [string, Buffer[], Value][] = [
    ['SET', [encode('SET', 'own', 'new')], 'new'],
    ['INCR', [encode('INCR', 'own')], '2'],
    ['DEL', [encode('DEL', 'own')], null],
    ['MULTI/EXEC', [encode('MULTI'), encode('SET', 'own', 'tx'), encode('EXEC')], 'tx'],
    ['EVAL', [encode('EVAL', "return redis.call('SET', KEYS[1], 'lua')", '1', 'own')], 'lua'],
  ];
  for (const [name, writes, expected] of own) {
    it(`its own ${name} pipelined ahead of a GET of a cached key is seen`, async () => {
      const c = await RawClient.connect(a.port);
      try {
        await c.call('SET', 'own', '1');
        assert.equal(await c.call('GET', 'own'), '1');
        assert.equal(await c.call('GET', 'own'), '1');
        const hits = (await cacheInfo(a.port)).cache_hits;
        assert.equal(await c.call('GET', 'own'), '1');
        assert.ok((await cacheInfo(a.port)).cache_hits > hits, 'the second GET was a hit');
        c.send(Buffer.concat([...writes, encode('GET', 'own'), encode('MGET', 'own')]));
        const replies = await c.read(writes.length + 2);
        assert.deepEqual(replies.slice(-2), [expected, [expected]]);
      } finally {
        c.close();
      }
    });
  }

  // PFCOUNT is readonly but rewrites its HLL's cached cardinality (Redis's signalModifiedKey): the
  // header's byte 15 loses its "stale" bit 0x80, which a GET shows (may_replicate: kFlagsModify)
  it('sees PFCOUNT rewrite the cached cardinality, its own pipelined or from another client', async () => {
    const reader = await RawClient.connect(a.port);
    const writer = await RawClient.connect(a.port);
    try {
      const stale = (v: Value): boolean => (String(v).charCodeAt(15) & 0x80) !== 0;
      await writer.call('DEL', 'hll');
      await writer.call('PFADD', 'hll', 'a', 'b');
      assert.ok(stale(await reader.call('GET', 'hll')));
      assert.ok(stale(await reader.call('GET', 'hll')));
      const hits = (await cacheInfo(a.port)).cache_hits;
      assert.ok(stale(await reader.call('GET', 'hll')));
      assert.ok((await cacheInfo(a.port)).cache_hits > hits, 'the second GET was a hit');
      assert.equal(await writer.call('PFCOUNT', 'hll'), 2);
      assert.ok(!stale(await reader.call('GET', 'hll')), 'the GET after PFCOUNT shows its cached cardinality');
      await writer.call('PFADD', 'hll', 'c');
      assert.ok(stale(await reader.call('GET', 'hll')));
      assert.ok(stale(await reader.call('GET', 'hll')));
      reader.send(Buffer.concat([encode('PFCOUNT', 'hll'), encode('GET', 'hll')]));
      const [count, value] = await reader.read(2);
      assert.equal(count, 3);
      assert.ok(!stale(value), 'its own GET pipelined behind PFCOUNT');
      // and from a script
      await writer.call('PFADD', 'hll', 'd');
      assert.ok(stale(await reader.call('GET', 'hll')));
      assert.ok(stale(await reader.call('GET', 'hll')));
      assert.equal(await writer.call('EVAL', "return redis.call('PFCOUNT', KEYS[1])", '1', 'hll'), 4);
      assert.ok(!stale(await reader.call('GET', 'hll')), 'the GET after a script\'s PFCOUNT shows its cached cardinality');
    } finally {
      reader.close();
      writer.close();
    }
  });

  it('sees MULTI/EXEC from another client', async () => {
    const reader = await RawClient.connect(a.port);
    const writer = await RawClient.connect(a.port);
    await writer.call('SET', 'm', 'old');
    assert.equal(await reader.call('GET', 'm'), 'old');
    assert.equal(await reader.call('GET', 'm'), 'old');
    await writer.call('MULTI');
    await writer.call('SET', 'm', 'new');
    assert.deepEqual(await writer.call('EXEC'), ['OK']);
    assert.equal(await reader.call('GET', 'm'), 'new');
    reader.close();
    writer.close();
  });

  it('an entry never outlives its TTL (lazy: the sweeper has not run)', async () => {
    const c = await RawClient.connect(a.port);
    // 2 s, not 150 ms: at load ~17 a SET and two GETs took longer than 150 ms (fresh-clone run)
    const set = Date.now();
    await c.call('SET', 'ttl', 'v', 'PX', '2000');
    assert.equal(await c.call('GET', 'ttl'), 'v');
    assert.equal(await c.call('GET', 'ttl'), 'v');
    assert.ok(Date.now() - set < 2000, 'both GETs ran before the TTL');
    await new Promise((r) => setTimeout(r, set + 2100 - Date.now()));
    assert.equal(await c.call('GET', 'ttl'), null);
    c.close();
  });

  it('a second instance on the schema (--cache exclusive too) turns the cache off for both, and its writes are seen', async () => {
    const c = await RawClient.connect(a.port);
    await c.call('SET', 'two', 'a');
    await c.call('GET', 'two');
    assert.equal((await cacheInfo(a.port)).cache_enabled, 1);
    const b = await startServer(['--cache', 'exclusive', '--workers', '1', '--storage-mode', 'unlogged'], { schema });
    try {
      assert.equal((await cacheInfo(a.port)).cache_enabled, 0);
      assert.equal((await cacheInfo(b.port)).cache_enabled, 0, 'the newcomer does not cache either');
      assert.equal(/read cache off/.test(a.output() + b.output()), true);
      const cb = await RawClient.connect(b.port);
      await cb.call('SET', 'two', 'b');
      assert.equal(await c.call('GET', 'two'), 'b');
      cb.close();
    } finally {
      await b.stop();
    }
    c.close();
  });
});

describe('read cache, Postgres restarted', () => {
  it('a crashed Postgres (unlogged keyspace emptied) leaves no entry behind', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postresp-cache-'));
    const s = await startServer(['--cache', 'exclusive', '--data-dir', path.join(dir, 'pg'), '--storage-mode', 'unlogged', '--workers', '1'], { embedded: true, timeoutMs: 60000 });
    try {
      const c = await RawClient.connect(s.port);
      await c.call('SET', 'k', 'v');
      assert.equal(await c.call('GET', 'k'), 'v');
      assert.equal(await c.call('GET', 'k'), 'v');
      const pid = Number(fs.readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'latin1').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      let got: Value = 'v';
      for (let i = 0; i < 300; i++) {
        await new Promise((r) => setTimeout(r, 100));
        got = await c.call('GET', 'k');
        if (got === null) break;
      }
      assert.equal(got, null);
      c.close();
    } finally {
      await s.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
