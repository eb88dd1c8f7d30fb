/**
 * Differential: the keyspace events Redis fires from key lookups (core/engine/key-presence.ts):
 * `new` (n), `keymiss` (m) and lazy `expired` (x), against redis-server 7.0.15, as a subscriber on
 * PSUBSCRIBE * sees them. Our sweeper is off in this file (POSTRESP_ACTIVE_EXPIRE=no), so a key past
 * its TTL is found by the next command that names it, as Redis's are within one pipeline.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient, encode, type Value } from '../e2e/resp-client';
import { Oracle } from './oracle';
import { kEventCases, type EventCase } from './write-events-cases';
import { compareNotifications } from './keyspace-notify-compare';

process.env.POSTRESP_ACTIVE_EXPIRE = 'no';
let oracle: Oracle;
before(async () => { oracle = await Oracle.start(['--workers', '2', '--storage-mode', 'unlogged']); });
after(async () => { await oracle?.stop(); });

const c = (cmd: string, ...setup: string[]): EventCase => ({ setup: setup.map((s) => s.split(' ')), cmd: cmd.split(' ') });

/** reads of missing keys: which fire keymiss, and which (OBJECT, MEMORY USAGE, pops, DEL…) do not */
const kReadCases: EventCase[] = [
  c('GET k'), c('MGET a b c', 'SET b 1'), c('STRLEN k'), c('GETRANGE k 0 1'), c('EXISTS a b', 'SET b 1'), c('TYPE k'),
  c('TTL k'), c('PEXPIRETIME k'), c('DUMP k'), c('OBJECT ENCODING k'), c('OBJECT FREQ k'), c('TOUCH a b', 'SET b 1'),
  c('LCS a b', 'SET b 1'), c('LLEN l'), c('LRANGE l 0 -1'), c('LPOS l a'), c('HGET h f'), c('HMGET h f g'), c('HSCAN h 0'),
  c('SMEMBERS s'), c('SMISMEMBER s a b'), c('SINTER a b', 'SADD b x'), c('SINTERCARD 2 a b'), c('ZSCORE z a'),
  c('ZRANGEBYLEX z - +'), c('ZUNION 2 a b'), c('ZINTERCARD 2 a b'), c('GEOPOS g a'), c('GEOSEARCH g FROMLONLAT 0 0 BYRADIUS 1 km'),
  c('XRANGE x - +'), c('XINFO STREAM x'), c('XPENDING x g'), c('XACK x g 1-0'), c('PFCOUNT a b', 'PFADD b x'),
  c('BITCOUNT b'), c('GETBIT b 0'), c('BITFIELD_RO b GET u8 0'), c('BITFIELD b GET u8 0'), c('SORT_RO l'),
  c('RANDOMKEY'), c('SCAN 0'), c('MEMORY USAGE k'), c('LPOP l'), c('ZPOPMIN z'), c('LMPOP 2 a b LEFT'), c('SREM s a'),
  c('DEL a'), c('EXPIRE k 10'), c('LPUSHX l a'), c('LSET l 0 a'), c('HINCRBY h f 1'), c('SMOVE a b x'), c('RPOPLPUSH a b'),
  c('GETEX k PERSIST'), c('RENAME a b'), c('XADD x NOMKSTREAM * f v'), c('ZADD z XX 1 a'), c('HSETNX h f v', 'HSET h f v'),
  c('ZRANGESTORE d z 0 1'), c('SDIFFSTORE d a b'), c('PFMERGE d a'), c('WATCH k'), c('BITOP NOT d a'), c('OBJECT HELP'),
];

const kProbed = kEventCases.filter((k) =>
  // BITFIELD … OVERFLOW FAIL that sets nothing: Redis creates an empty string, we create no key
  k.cmd.join(' ') !== 'BITFIELD b OVERFLOW FAIL INCRBY u2 0 9');

/** MULTI … EXEC: each queued command's lookups fire inside EXEC, in order, against what the ones before it left */
const m = (block: string, ...setup: string[]): EventCase =>
  ({ setup: setup.map((s) => s.split(' ')), cmd: ['MULTI'], then: [...block.split('; ').map((l) => l.split(' ')), ['EXEC']] });
const kMultiCases: EventCase[] = [
  m('SET a 1; SET a 2; GET b; LPUSH l x; RPUSH l y; GET a'),
  m('GET a; SET a 1; GET a; DEL a; SET a 2; EXISTS a c'),
  m('SET k w; INCR n; HSET h f v; HGET h g; HGET x f', 'SET k v'),
  m('SELECT 1; SET a 1; GET zz; SELECT 0; SET a 1; GET zz'),
  m('LPUSH s x; GET s; SADD t a; GET nope', 'SET s v'),
  m('RENAME a b; COPY b c; GET a; SINTERSTORE d a e; SADD e x; SUNIONSTORE d a e', 'SET a 1'),
  m('BLPOP l 0; LPUSH l a; BLMOVE l d LEFT LEFT 0; LMOVE d e RIGHT LEFT; GET l'),
  m('SET k v NX; SET k w GET; GETDEL k; GETDEL k; INCRBY k 2'),
];

/** scripts: each redis.call's lookups fire from inside the script, in order (the declared keys alone fire nothing) */
const e = (body: string, keys: string[], ...setup: string[]): EventCase =>
  ({ setup: setup.map((s) => s.split(' ')), cmd: ['EVAL', body, String(keys.length), ...keys] });
const kScriptCases: EventCase[] = [
  e("redis.call('get', KEYS[1]); redis.call('set', KEYS[1], 'v'); redis.call('set', KEYS[1], 'w'); return redis.call('get', KEYS[1])", ['a']),
  e("redis.call('mget', KEYS[1], KEYS[2]); redis.call('lpush', KEYS[2], 'x'); redis.call('del', KEYS[2]); return redis.call('rpush', KEYS[2], 'y')", ['a', 'l'], 'SET a 1'),
  e("return redis.pcall('lpush', KEYS[1], 'x')", ['s'], 'SET s v'),
  e("redis.call('exists', KEYS[1], KEYS[2]); return 1", ['a', 'b']),
  e("return redis.call('ping')", ['a']),
  e("redis.call('select', 1); redis.call('get', 'k'); redis.call('incr', 'k'); redis.call('select', 0); return redis.call('hget', 'h', 'f')", []),
  { setup: [], cmd: ['EVAL_RO', "return redis.call('get', KEYS[1])", '1', 'z'] },
];

/** `channel message` of each notification sub got before a PUBLISH on `fence` by cmd; then notifications off */
async function fenced(sub: RawClient, cmd: RawClient): Promise<string[]> {
  await cmd.call('PUBLISH', 'fence', 'x');
  const got: string[] = [];
  for (;;) {
    const [m] = await sub.read(1) as Value[][];
    if (m[2] === 'fence') break;
    got.push(`${m[2]} ${m[3]}`);
  }
  await cmd.call('CONFIG', 'SET', 'notify-keyspace-events', '');
  return got;
}

describe('new, keymiss and lazy expired vs redis-server', () => {
  it('scripts: new and keymiss per redis.call, in order, inside EVAL', async () => {
    assert.ok(await compareNotifications(oracle, kScriptCases, 'KEAnm') > 30);
    await compareNotifications(oracle, kScriptCases, 'Km');
  });

  it('MULTI/EXEC: new and keymiss per queued command, in order, inside EXEC', async () => {
    assert.ok(await compareNotifications(oracle, kMultiCases, 'KEAnm') > 50);
    await compareNotifications(oracle, kMultiCases, 'Enm');
  });

  it('KEAnm: every write command\'s cases, `new` where a write created its key, `keymiss` where it read none', async () => {
    assert.ok(await compareNotifications(oracle, kProbed, 'KEAnm') > 300);
  });

  it('n and m alone, each channel kind (a third of the cases)', async () => {
    const some = kProbed.filter((_, i) => i % 3 === 0);
    for (const flags of ['En', 'Kn', 'Em', 'Km']) await compareNotifications(oracle, some, flags);
  });

  it('reads: keymiss per missing key read, none where Redis does not notify (OBJECT, MEMORY USAGE, pops)', async () => {
    assert.ok(await compareNotifications(oracle, kReadCases, 'KEAm') > 60);
  });

  it('blocking commands served by a wake-up: the lookups as the pop finds its keys then (BLMOVE creating its destination is new)', async () => {
    const run = async (port: number, blocked: string[], push: string[], setup: string[][]): Promise<string[]> => {
      const sub = await RawClient.connect(port);
      const a = await RawClient.connect(port);
      const b = await RawClient.connect(port);
      try {
        await b.call('CONFIG', 'SET', 'notify-keyspace-events', '');
        await b.call('FLUSHALL');
        for (const l of setup) await b.call(...l);
        await b.call('CONFIG', 'SET', 'notify-keyspace-events', 'KEAnm');
        sub.send(encode('PSUBSCRIBE', '*'));
        await sub.read(1);
        a.send(encode(...blocked));
        // blocked once CLIENT LIST shows it (flags=b)
        while (!String(await b.call('CLIENT', 'LIST')).includes('flags=b')) await new Promise((r) => setTimeout(r, 5));
        await b.call(...push);
        await a.read(1);
        return await fenced(sub, b);
      } finally {
        sub.close();
        a.close();
        b.close();
      }
    };
    const cases: [string[], string[], string[][]][] = [
      [['BLPOP', 'l', '0'], ['RPUSH', 'l', 'a'], []],
      [['BLPOP', 'x', 'l', '0'], ['RPUSH', 'l', 'a', 'b'], []],
      [['BLMOVE', 'l', 'd', 'LEFT', 'RIGHT', '0'], ['RPUSH', 'l', 'a'], []],
      [['BLMOVE', 'l', 'd', 'LEFT', 'RIGHT', '0'], ['RPUSH', 'l', 'a', 'b'], [['RPUSH', 'd', 'z']]],
      [['BRPOPLPUSH', 'l', 'l2', '0'], ['LPUSH', 'l', 'a'], []],
      [['BZPOPMIN', 'z', '0'], ['ZADD', 'z', '1', 'a'], []],
      [['BLMPOP', '0', '2', 'a', 'l', 'LEFT'], ['RPUSH', 'l', 'a'], []],
    ];
    for (const [blocked, push, setup] of cases) {
      const theirs = await run(oracle.redis.port, blocked, push, setup);
      assert.deepEqual(await run(oracle.postresp.port, blocked, push, setup), theirs, blocked.join(' '));
    }
  });

  it('lazy expiry: a command that finds its key past its TTL fires expired, then keymiss or new', async () => {
    // redis-server: one pipeline (its clock moves per command, and its expiry cycle cannot run
    // inside one); PostRESP reads the clock when a command is dispatched, and a pipeline arrives
    // at once: the reads go 5 ms after the writes' replies (no sweeper here to take the keys first)
    const run = async (port: number, split: boolean): Promise<[Value[], string[]]> => {
      const sub = await RawClient.connect(port);
      const cmd = await RawClient.connect(port);
      try {
        await cmd.call('FLUSHALL');
        await cmd.call('CONFIG', 'SET', 'notify-keyspace-events', '');
        // a SORT of 20,000 numbers between the writes and the reads: > 2 ms on redis-server, so the
        // keys are past their 1 ms TTL within one pipeline, before Redis's expiry cycle runs
        for (let i = 0; i < 20000; i += 5000) {
          await cmd.call('RPUSH', 'big', ...Array.from({ length: 5000 }, (_, j) => String(((i + j) * 7919) % 20011)));
        }
        await cmd.call('CONFIG', 'SET', 'notify-keyspace-events', 'KEAnm');
        sub.send(encode('PSUBSCRIBE', '*'));
        await sub.read(1);
        const line = [['PSETEX', 'a', '1', 'v'], ['PSETEX', 'b', '1', 'v'], ['PSETEX', 'c', '1', 'v'], ['PSETEX', 'd', '1', 'v'],
          ['SORT', 'big', 'STORE', 'sorted'], ['GET', 'a'], ['SET', 'b', 'w'], ['LPUSH', 'c', 'x'], ['EXISTS', 'd', 'd']];
        const send = async (part: string[][]): Promise<Value[]> => {
          cmd.send(Buffer.concat(part.map((l) => encode(...l))));
          return cmd.read(part.length);
        };
        let replies: Value[];
        if (split) {
          replies = await send(line.slice(0, 5));
          await new Promise((r) => setTimeout(r, 5));
          replies.push(...await send(line.slice(5)));
        } else {
          replies = await send(line);
        }
        // after the replies: a PUBLISH in the pipeline would pass our commands still in Postgres
        return [replies.slice(5), await fenced(sub, cmd)];
      } finally {
        sub.close();
        cmd.close();
      }
    };
    const theirs = await run(oracle.redis.port, false);
    assert.ok(theirs[1].includes('__keyevent@0__:expired a'), 'redis-server found a expired in the pipeline');
    assert.deepEqual(await run(oracle.postresp.port, true), theirs);
  });
});
