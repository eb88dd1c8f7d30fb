/**
 * Differential: the committed-write hook against redis-server 7.0.15's keyspace notifications.
 *
 * Every case of write-events-cases.ts runs on both servers: redis-server publishes its events
 * (`notify-keyspace-events KEA`, read by write-events-redis.ts), PostRESP's hook reports are read
 * back with `DEBUG WRITE-HOOK READ` on the connection that wrote. They must be the same events,
 * dbs and keys in the same order, and none marked maybe: every outcome Redis's events depend on
 * comes back from our statements (docs/write-hook.md), as keyspace notifications need. Every reported key must
 * be one of the keys COMMAND GETKEYS names for the line. FLUSHDB, FLUSHALL and SWAPDB, which fire
 * nothing in Redis, must report their dbs whole.
 *
 * The cases are checked against the table: a write command without a case fails the test, so a
 * new family has to say what it fires. Then EXEC (queued commands reported once committed, each
 * in its db; nothing when a WATCH aborts it) and the sweeper's `expired`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allCommands } from '../../core/engine/commands/index';
import { RawClient, type Value } from '../e2e/resp-client';
import { startServer, type RunningServer } from '../e2e/start-server';
import { startRedis, type RedisServer } from './oracle';
import { kEventCases, type EventCase } from './write-events-cases';
import { redisEvents, type Event } from './write-events-redis';

/** a hook report as DEBUG WRITE-HOOK READ gives it: db, event, key (null = every key), maybe 0|1 */
type Report = [number, string, string | null, number];

let redis: RedisServer;
let server: RunningServer;
before(async () => {
  [redis, server] = await Promise.all([startRedis(),
    startServer(['--workers', '2', '--storage-mode', 'unlogged', '--enable-debug-command', 'yes'])]);
});
after(async () => {
  await Promise.all([redis?.stop(), server?.stop()]);
});

async function hookReports(c: RawClient, { setup, cmd }: EventCase): Promise<{ reports: Report[]; reply: Value; keys: Value }> {
  await c.call('FLUSHALL');
  for (const s of setup) await c.call(...s);
  await c.call('SELECT', '0');
  const keys = await c.call('COMMAND', 'GETKEYS', ...cmd);
  assert.equal(await c.call('DEBUG', 'WRITE-HOOK', 'ON'), 'OK');
  const reply = await c.call(...cmd);
  return { reports: await c.call('DEBUG', 'WRITE-HOOK', 'READ') as Report[], reply, keys };
}

/** Redis's events = ours, in order, none of ours a maybe. */
function matches(ours: Report[], theirs: Event[]): boolean {
  return ours.length === theirs.length && ours.every(([db, event, key, maybe], i) =>
    maybe === 0 && theirs[i][0] === db && theirs[i][1] === event && theirs[i][2] === key);
}

const kWholeDb: Record<string, Report[]> = {
  flushdb: [[0, 'flushdb', null, 0]],
  flushall: [[-1, 'flushall', null, 0]],
  swapdb: [[0, 'swapdb', null, 0], [1, 'swapdb', null, 0]],
};

// SPOP's members are random: its reply is compared by shape
const shape = (cmd: string[], v: Value): string =>
  JSON.stringify(cmd[0].toLowerCase() === 'spop' ? JSON.stringify(v).replace(/"[abc]"/g, '"*"') : v);

describe('write hook vs redis-server keyspace events', () => {
  it('every write command in the table has cases', () => {
    // a container's subcommand counts as `name|sub` (FUNCTION LOAD, XGROUP CREATE)
    const covered = new Set(kEventCases.flatMap((c) => [c.cmd[0], `${c.cmd[0]}|${c.cmd[1] ?? ''}`].map((n) => n.toLowerCase())));
    const missing = allCommands().flatMap((s) => [s, ...s.subcommands ?? []])
      .filter((s) => s.flags.includes('write') && !covered.has(s.name)).map((s) => s.name);
    assert.deepEqual(missing, [], `write commands without a case in write-events-cases.ts: ${missing.join(', ')}`);
  });

  it('reports the events redis-server fires, for every case', async () => {
    const expected = await redisEvents(redis.port, kEventCases);
    const c = await RawClient.connect(server.port);
    const failures: string[] = [];
    let confirmed = 0;
    try {
      for (let n = 0; n < kEventCases.length; n++) {
        const k = kEventCases[n];
        const { reports, reply, keys } = await hookReports(c, k);
        const line = `${k.cmd.join(' ')}${k.setup.length ? ` (after ${k.setup.map((s) => s.join(' ')).join('; ')})` : ''}`;
        const theirs = expected.events[n];
        if (shape(k.cmd, reply) !== shape(k.cmd, expected.replies[n])) {
          failures.push(`${line}: replied ${JSON.stringify(reply)}, redis-server ${JSON.stringify(expected.replies[n])}`);
          continue;
        }
        const whole = kWholeDb[k.cmd[0].toLowerCase()];
        const ours = reports.filter((r) => r[2] !== null);
        if (whole !== undefined && reply === 'OK' && !(k.cmd[0] === 'SWAPDB' && k.cmd[1] === k.cmd[2])) {
          assert.deepEqual(reports.filter((r) => r[2] === null), whole, line);
        }
        if (!matches(ours, theirs)) {
          failures.push(`${line}: reported ${JSON.stringify(ours)}, redis-server fired ${JSON.stringify(theirs)}`);
          continue;
        }
        const named = new Set((Array.isArray(keys) ? keys : []).map(String));
        const stray = ours.filter((r) => !named.has(r[2]!));
        if (stray.length > 0) failures.push(`${line}: reported keys ${JSON.stringify(stray)} that COMMAND GETKEYS does not name (${JSON.stringify(keys)})`);
        confirmed += theirs.length;
      }
    } finally {
      c.close();
    }
    assert.deepEqual(failures, [], `${failures.length} of ${kEventCases.length} cases differ:\n${failures.join('\n')}`);
    assert.ok(confirmed > 100, `${confirmed} events matched`);
  });

  it('EXEC reports its queued writes once committed, each in its db; an aborted EXEC nothing', async () => {
    const c = await RawClient.connect(server.port);
    const w = await RawClient.connect(server.port);
    try {
      await c.call('FLUSHALL');
      assert.equal(await c.call('DEBUG', 'WRITE-HOOK', 'ON'), 'OK');
      for (const cmd of [['MULTI'], ['SET', 'a', '1'], ['SELECT', '3'], ['LPUSH', 'l', 'x'], ['GET', 'a'], ['INCR', 'l'],
        ['LPOP', 'l'], ['EXEC']]) {
        await c.call(...cmd);
      }
      // INCR on a list: WRONGTYPE in its slot, no event; the others committed, LPOP's `del` known
      // from its statement there too
      assert.deepEqual(await c.call('DEBUG', 'WRITE-HOOK', 'READ'),
        [[0, 'set', 'a', 0], [3, 'lpush', 'l', 0], [3, 'lpop', 'l', 0], [3, 'del', 'l', 0]]);
      await c.call('SELECT', '0');
      await c.call('WATCH', 'a');
      await c.call('MULTI');
      await c.call('DEL', 'a');
      await w.call('SET', 'a', '2'); // another client changes the watched key
      assert.equal(await c.call('EXEC'), null);
      assert.deepEqual(await c.call('DEBUG', 'WRITE-HOOK', 'READ'), []);
    } finally {
      c.close();
      w.close();
    }
  });

  it('a script reports its writes once committed, as exact as a client\'s', async () => {
    const c = await RawClient.connect(server.port);
    try {
      await c.call('FLUSHALL');
      assert.equal(await c.call('DEBUG', 'WRITE-HOOK', 'ON'), 'OK');
      assert.equal(await c.call('EVAL', "redis.call('rpush', KEYS[1], 'x') return redis.call('lpop', KEYS[1])", '1', 'l'), 'x');
      assert.deepEqual(await c.call('DEBUG', 'WRITE-HOOK', 'READ'), [[0, 'rpush', 'l', 0], [0, 'lpop', 'l', 0], [0, 'del', 'l', 0]]);
    } finally {
      c.close();
    }
  });

  it('the sweeper\'s deletions reach every listening worker as expired', async () => {
    // one connection on each worker. The hook log is the worker's, not the connection's, and READ
    // empties it: two connections on one worker would see the event once between them. Dealing in
    // turn does not promise two workers: the previous tests' closes reach the primary's counts late.
    const a = await RawClient.connect(server.port);
    let b = await RawClient.connect(server.port);
    try {
      await a.call('FLUSHALL');
      for (const c of [a, b]) assert.equal(await c.call('DEBUG', 'WRITE-HOOK', 'ON'), 'OK');
      for (let i = 0; ; i++) {
        await a.call('SET', 'which-worker', String(i));
        const heard = await b.call('DEBUG', 'WRITE-HOOK', 'READ') as Value[];
        await a.call('DEBUG', 'WRITE-HOOK', 'READ');
        if (!heard.some((r) => (r as Value[])[2] === 'which-worker')) break;
        assert.ok(i < 50, 'no connection reached the second worker');
        b.close();
        b = await RawClient.connect(server.port);
        assert.equal(await b.call('DEBUG', 'WRITE-HOOK', 'ON'), 'OK');
      }
      await a.call('SELECT', '5');
      // a second to live: each worker's 'listening' message reaches the primary before the sweeper
      // can delete the key (with PX 1 a busy primary swept it first once, and nobody heard it)
      await a.call('SET', 'gone', 'v', 'PX', '1000');
      await a.call('SET', 'kept', 'v');
      for (const c of [a, b]) {
        const seen: Value[] = [];
        for (let i = 0; i < 200 && !seen.some((r) => JSON.stringify(r) === '[5,"expired","gone",0]'); i++) {
          seen.push(...await c.call('DEBUG', 'WRITE-HOOK', 'READ') as Value[]);
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.deepEqual(seen.filter((r) => (r as Value[])[1] === 'expired'), [[5, 'expired', 'gone', 0]]);
      }
      for (const c of [a, b]) assert.equal(await c.call('DEBUG', 'WRITE-HOOK', 'OFF'), 'OK');
    } finally {
      a.close();
      b.close();
    }
  });
});
