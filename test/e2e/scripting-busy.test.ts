/**
 * Runaway scripts holding every script connection (workers × --script-connections = the process's
 * Lua threads): a new EVAL/FCALL answers Redis's BUSY once a call holding one runs past
 * busy-reply-threshold (so does FUNCTION LOAD/DELETE/FLUSH), instead of waiting with no reply
 * (workers/storage/script-busy.ts); before
 * the threshold it waits, and SCRIPT KILL / FUNCTION KILL free the connections for it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient, encode, type Value } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';

let srv: RunningServer;
const schema = uniqueSchema('busy');
// 2 workers × 4 script connections: 8 Lua threads; 16 runaways hold all (~8 per worker: a split
// skewed by clients of the last test still closing leaves each worker at least 4)
const kHeld = 8;
const kRunaways = 16;
const kLib = "#!lua name=busylib\nredis.register_function('busyspin', function() while true do end end)\n" +
  "redis.register_function('busyset', function(keys, args) return redis.call('set', keys[1], args[1]) end)";

before(async () => {
  srv = await startServer(['--workers', '2', '--script-connections', '4', '--storage-mode', 'unlogged'], { schema });
});
after(async () => {
  await srv?.stop();
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`))).catch(() => undefined);
});

const errorOf = (v: Value): string => (v as { error?: string } | null)?.error ?? String(v);
const busyText = (kill: string): string => `BUSY Redis is busy running a script. You can only call ${kill} KILL or SHUTDOWN NOSAVE.`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Sends one command; its reply (or the read's error text) whenever it comes, up to 60 s. */
function send(c: RawClient, ...cmd: string[]): Promise<Value> {
  c.send(encode(...cmd));
  return c.read(1, 60_000).then((v) => v[0], (e: Error) => `no reply: ${e.message}`);
}

/** KILL of kind until every call in `calls` answered (a call batched behind a killed one runs next) */
async function killAll(admin: RawClient, kind: string, calls: Promise<Value>[]): Promise<Value[]> {
  let done = false;
  const all = Promise.all(calls).finally(() => { done = true; });
  for (const end = Date.now() + 20_000; !done && Date.now() < end; await sleep(200)) await admin.call(kind, 'KILL');
  return all;
}

/** More runaway calls than connections, from clients the primary deals to the workers by count:
 * every connection is opened first by calls that overlap (a connection opened while calls queue
 * takes them all as one batch), then each runaway arrives to an idle one, or queues. */
async function holdEveryConnection(runaway: string[]): Promise<{ clients: RawClient[]; stuck: Promise<Value>[] }> {
  const clients = await Promise.all(Array.from({ length: kRunaways }, () => RawClient.connect(srv.port)));
  const spin = 'local t = redis.call("TIME") local e = t[1] * 1000000 + t[2] + 300000 repeat t = redis.call("TIME") until t[1] * 1000000 + t[2] >= e return 1';
  assert.deepEqual(await Promise.all(clients.map((c) => send(c, 'EVAL', spin, '0'))), clients.map(() => 1));
  const stuck: Promise<Value>[] = [];
  for (const c of clients) {
    stuck.push(send(c, ...runaway));
    // room for a connection that still has to open: a runaway arriving meanwhile would join its batch
    await sleep(150);
  }
  return { clients, stuck };
}

describe('runaway calls on every Lua thread', () => {
  it('a new EVAL waits before busy-reply-threshold and runs after SCRIPT KILL', async () => {
    const admin = await RawClient.connect(srv.port);
    assert.equal(await admin.call('FUNCTION', 'LOAD', 'REPLACE', kLib), 'busylib');
    assert.equal(await admin.call('CONFIG', 'SET', 'busy-reply-threshold', '600000'), 'OK');
    const { clients, stuck } = await holdEveryConnection(['EVAL', 'while true do end', '0']);
    const probe = await RawClient.connect(srv.port);
    let answered: Value | undefined;
    // an FCALL: the SCRIPT KILLs below (repeated for runaways that start after the first) cannot stop it
    const p = send(probe, 'FCALL', 'busyset', '1', 'busy:key1', '1').then((v) => (answered = v));
    await sleep(1500);
    assert.equal(answered, undefined, 'no connection was free: the call waits (no BUSY before the threshold)');
    assert.equal(await admin.call('SCRIPT', 'KILL'), 'OK');
    for (const r of await killAll(admin, 'SCRIPT', [...stuck])) assert.match(errorOf(r), /^ERR Script killed by user with SCRIPT KILL/);
    assert.equal(await p, 'OK');
    assert.equal(await admin.call('GET', 'busy:key1'), '1');
    assert.equal(await admin.call('CONFIG', 'SET', 'busy-reply-threshold', '5000'), 'OK');
    for (const c of [...clients, probe, admin]) c.close();
    await sleep(500); // the primary deals the next test's clients by count: let these close first
  });

  // [what runs away, its KILL]
  const kRunaways: [string, string[], string][] = [
    ['EVAL scripts', ['EVAL', 'while true do end', '0'], 'SCRIPT'],
    ['functions', ['FCALL', 'busyspin', '0'], 'FUNCTION'],
  ];
  for (const [what, runaway, kill] of kRunaways) {
    it(`${what} past the threshold: a new EVAL, EVALSHA, FCALL and FUNCTION LOAD answer BUSY (${kill} KILL), then ${kill} KILL and they run`, async () => {
      const admin = await RawClient.connect(srv.port);
      assert.equal(await admin.call('FUNCTION', 'LOAD', 'REPLACE', kLib), 'busylib');
      const setBody = "return redis.call('set',KEYS[1],ARGV[1])";
      const setSha = String(await admin.call('SCRIPT', 'LOAD', setBody));
      const kThresholdMs = 1000;
      assert.equal(await admin.call('CONFIG', 'SET', 'busy-reply-threshold', String(kThresholdMs)), 'OK');
      const { clients, stuck } = await holdEveryConnection(runaway);
      const probes = await Promise.all([0, 1, 2, 3].map(() => RawClient.connect(srv.port)));
      const sent = Date.now();
      const replies = await Promise.all([
        send(probes[0], 'EVAL', setBody, '1', 'busy:key1', '2'),
        send(probes[1], 'EVALSHA', setSha, '1', 'busy:key2', '2'),
        send(probes[2], 'FCALL', 'busyset', '1', 'busy:key3', '2'),
        // a library change waits for a script connection too: BUSY, as Redis refuses it then
        send(probes[3], 'FUNCTION', 'LOAD', 'REPLACE', kLib),
      ]);
      const waited = Date.now() - sent;
      assert.deepEqual(replies.map(errorOf), [busyText(kill), busyText(kill), busyText(kill), busyText(kill)]);
      // the oldest runaway started before the probes: BUSY by the threshold + the 100 ms check + slack
      assert.ok(waited < kThresholdMs + 3000, `BUSY after ${waited} ms`);
      assert.equal(await admin.call(kill, 'KILL'), 'OK');
      // the runaways that held a connection are killed (Redis's text for a function too), those
      // that waited for one answered BUSY at the threshold, as Redis answers a second runaway
      const ends = (await killAll(admin, kill, stuck)).map((r) => errorOf(r).replace(/^ERR Script killed by user with SCRIPT KILL.*/, 'killed'));
      assert.deepEqual(ends.filter((e) => e !== 'killed' && e !== busyText(kill)), []);
      assert.ok(ends.filter((e) => e === 'killed').length >= kHeld, ends.join(', '));
      assert.deepEqual(await Promise.all([
        send(probes[0], 'EVAL', setBody, '1', 'busy:key1', '3'),
        send(probes[1], 'EVALSHA', setSha, '1', 'busy:key2', '3'),
        send(probes[2], 'FCALL', 'busyset', '1', 'busy:key3', '3'),
        send(probes[3], 'FUNCTION', 'LOAD', 'REPLACE', kLib),
      ]), ['OK', 'OK', 'OK', 'busylib']);
      assert.deepEqual(await admin.call('MGET', 'busy:key1', 'busy:key2', 'busy:key3'), ['3', '3', '3']);
      assert.equal(await admin.call('CONFIG', 'SET', 'busy-reply-threshold', '5000'), 'OK');
      for (const c of [...clients, ...probes, admin]) c.close();
      await sleep(500);
    });
  }
});
