/**
 * WATCH against redis-server 7.0, step by step: each case is a script of commands from clients
 * a, b and c run in that exact order (one reply read before the next command is sent). On
 * PostRESP, a and c talk to one process and b to a second process on the same schema, so every
 * touch by b crosses instances. Every reply must match redis-server's byte for byte.
 *
 * Redis's rules (multi.c, 7.0): a watched key is touched by any write to it (signalModifiedKey),
 * even one that creates it and deletes it again before EXEC; by FLUSHDB/FLUSHALL/SWAPDB only
 * when it exists (touchAllWatchedKeysInDb); a key that expires between WATCH and EXEC aborts
 * EXEC (isWatchedKeyExpired), one already expired at WATCH time does not, nor its deletion.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encode } from '../e2e/resp-client';
import { startServer, uniqueSchema, type RunningServer } from '../e2e/start-server';
import { withPg } from '../support/pg';
import { startRedis, type RedisServer } from './oracle';
import { FrameConn, show } from './resp-frames';

type Client = 'a' | 'b' | 'c';
type Step = [Client, ...string[]] | ['sleep', number];

/** MULTI PING EXEC on a: [PONG] when no watched key was touched, nil when one was. */
const exec: Step[] = [['a', 'MULTI'], ['a', 'PING'], ['a', 'EXEC']];
/** a watches x (absent unless the case created it), then `touch`, then EXEC */
const watchX = (touch: Step[], setup: Step[] = []): Step[] => [...setup, ['a', 'WATCH', 'x'], ...touch, ...exec];
const stale: Step[] = [['c', 'SET', 'x', 'old', 'PX', '1'], ['sleep', 20]];

const kCases: Record<string, Step[]> = {
  // absent at WATCH time
  'created by another instance': watchX([['b', 'SET', 'x', '1']]),
  'created and deleted again': watchX([['b', 'SET', 'x', '1'], ['b', 'DEL', 'x']]),
  'created with a TTL that passed': watchX([['b', 'SET', 'x', '1', 'PX', '1'], ['sleep', 20]]),
  'created in another database': watchX([['b', 'SELECT', '1'], ['b', 'SET', 'x', '1'], ['b', 'DEL', 'x']]),
  'DEL, UNLINK, EXPIRE, PERSIST of the absent key': watchX([['b', 'DEL', 'x'], ['b', 'UNLINK', 'x'],
    ['b', 'EXPIRE', 'x', '100'], ['b', 'PERSIST', 'x'], ['b', 'GETDEL', 'x'], ['b', 'SET', 'x', '1', 'XX']]),
  'FLUSHDB, FLUSHALL with the key absent': watchX([['b', 'SET', 'y', '1'], ['b', 'FLUSHDB'], ['b', 'FLUSHALL']]),
  'FLUSHDB after the key was created': watchX([['b', 'SET', 'x', '1'], ['b', 'FLUSHDB']]),
  'FLUSHALL after the key was created': watchX([['b', 'SET', 'x', '1'], ['b', 'FLUSHALL']]),
  'SWAPDB brings the key in': watchX([['b', 'SWAPDB', '0', '1']], [['c', 'SELECT', '1'], ['c', 'SET', 'x', '1']]),
  'SWAPDB with the key in neither database': watchX([['b', 'SET', 'y', '1'], ['b', 'SWAPDB', '0', '1'], ['b', 'SWAPDB', '0', '1']]),
  'SWAPDB brings a stale key in': watchX([['b', 'SWAPDB', '0', '1']], [['c', 'SELECT', '1'], ...stale]),
  'MOVE into the watched database': watchX([['b', 'SELECT', '1'], ['b', 'SET', 'x', '1'], ['b', 'MOVE', 'x', '0']]),
  'RENAME onto the key': watchX([['b', 'SET', 'y', '1'], ['b', 'RENAME', 'y', 'x'], ['b', 'DEL', 'x']]),
  'COPY onto the key': watchX([['b', 'SET', 'y', '1'], ['b', 'COPY', 'y', 'x']]),
  'HSET creates it': watchX([['b', 'HSET', 'x', 'f', 'v']]),
  'LPUSH creates it, LPOP empties it': watchX([['b', 'LPUSH', 'x', 'v'], ['b', 'LPOP', 'x']]),
  'SADD creates it, SREM empties it': watchX([['b', 'SADD', 'x', 'm'], ['b', 'SREM', 'x', 'm']]),
  'ZADD creates it': watchX([['b', 'ZADD', 'x', '1', 'm']]),
  'INCR, APPEND, SETRANGE, MSETNX, SETNX create it': [
    ...watchX([['b', 'INCR', 'x']]), ['b', 'DEL', 'x'], ...watchX([['b', 'APPEND', 'x', 'v']]), ['b', 'DEL', 'x'],
    ...watchX([['b', 'SETRANGE', 'x', '2', 'v']]), ['b', 'DEL', 'x'], ...watchX([['b', 'MSETNX', 'x', '1', 'y', '2']]),
    ['b', 'DEL', 'x'], ...watchX([['b', 'SETNX', 'x', '1']]), ['b', 'DEL', 'x'], ...watchX([['b', 'INCRBYFLOAT', 'x', '1.5']]),
  ],
  'store commands with an empty result': watchX([['b', 'ZUNIONSTORE', 'x', '1', 'nosuch'], ['b', 'SINTERSTORE', 'x', 'nosuch'],
    ['b', 'ZRANGESTORE', 'x', 'nosuch', '0', '-1'], ['b', 'SDIFFSTORE', 'x', 'nosuch']]),
  'SUNIONSTORE creates it': watchX([['b', 'SADD', 'y', 'm'], ['b', 'SUNIONSTORE', 'x', 'y']]),
  'ZUNIONSTORE creates it': watchX([['b', 'ZADD', 'y', '1', 'm'], ['b', 'ZUNIONSTORE', 'x', '1', 'y']]),
  'LMOVE and SMOVE create it': [...watchX([['b', 'RPUSH', 'y', 'v'], ['b', 'LMOVE', 'y', 'x', 'LEFT', 'LEFT']]),
    ['b', 'DEL', 'x'], ...watchX([['b', 'SADD', 'y', 'm'], ['b', 'SMOVE', 'y', 'x', 'm']])],
  'HINCRBY, ZINCRBY, GETSET, SET GET create it': [...watchX([['b', 'HINCRBY', 'x', 'f', '1']]), ['b', 'DEL', 'x'],
    ...watchX([['b', 'ZINCRBY', 'x', '1', 'm']]), ['b', 'DEL', 'x'], ...watchX([['b', 'GETSET', 'x', 'v']]), ['b', 'DEL', 'x'],
    ...watchX([['b', 'SET', 'x', 'v', 'GET']]), ['b', 'DEL', 'x'], ...watchX([['b', 'SET', 'x', 'v', 'NX', 'EX', '100']])],
  'collection writes that leave it absent': watchX([['b', 'SREM', 'x', 'm'], ['b', 'HDEL', 'x', 'f'],
    ['b', 'LPOP', 'x'], ['b', 'RPUSHX', 'x', 'v'], ['b', 'ZREM', 'x', 'm'], ['b', 'SMOVE', 'x', 'y', 'm'], ['b', 'LMOVE', 'x', 'y', 'LEFT', 'LEFT']]),
  'the watching client creates and deletes it': watchX([['a', 'SET', 'x', '1'], ['a', 'DEL', 'x']]),
  'UNWATCH, then created': [['a', 'WATCH', 'x'], ['a', 'UNWATCH'], ['b', 'SET', 'x', '1'], ...exec],
  'DISCARD, then created': [['a', 'WATCH', 'x'], ['a', 'MULTI'], ['a', 'DISCARD'], ['b', 'SET', 'x', '1'], ...exec],
  'one EXEC creates it: the other watcher fails': [['a', 'WATCH', 'x'], ['b', 'WATCH', 'x'], ['a', 'MULTI'],
    ['a', 'SET', 'x', 'a'], ['a', 'EXEC'], ['b', 'MULTI'], ['b', 'SET', 'x', 'b'], ['b', 'EXEC'], ['c', 'GET', 'x']],
  'two watchers: one EXEC, then a touch fails the other': [['a', 'WATCH', 'x'], ['b', 'WATCH', 'x'], ...exec,
    ['c', 'SET', 'x', '1'], ['b', 'MULTI'], ['b', 'PING'], ['b', 'EXEC']],
  'two watchers: one UNWATCHes, the other still sees a touch': [['a', 'WATCH', 'x'], ['b', 'WATCH', 'x'], ['a', 'UNWATCH'],
    ['c', 'SET', 'x', '1'], ['c', 'DEL', 'x'], ['b', 'MULTI'], ['b', 'PING'], ['b', 'EXEC']],
  'a watcher disconnects, the other still sees a touch': [['c', 'WATCH', 'x'], ['b', 'WATCH', 'x'], ['c', 'QUIT'],
    ['sleep', 50], ['a', 'SET', 'x', '1'], ['a', 'DEL', 'x'], ['b', 'MULTI'], ['b', 'PING'], ['b', 'EXEC']],
  'watched twice by one client': [['a', 'WATCH', 'x', 'x'], ['a', 'WATCH', 'x'], ...exec, ['a', 'WATCH', 'x'],
    ['b', 'SET', 'x', '1'], ['b', 'DEL', 'x'], ...exec],
  // stale (expired, not yet deleted) at WATCH time
  'stale at WATCH: deleted': watchX([['b', 'DEL', 'x'], ['b', 'EXISTS', 'x']], stale),
  'stale at WATCH: FLUSHDB': watchX([['b', 'FLUSHDB']], stale),
  'stale at WATCH: SWAPDB with nothing': watchX([['b', 'SWAPDB', '0', '1']], stale),
  'stale at WATCH: overwritten': watchX([['b', 'SET', 'x', '2']], stale),
  // present at WATCH time (worked before absent keys did: kept as regression cases)
  'present: modified': watchX([['b', 'SET', 'x', '2']], [['c', 'SET', 'x', '1']]),
  'present: expired between WATCH and EXEC': watchX([['sleep', 150]], [['c', 'SET', 'x', '1', 'PX', '100']]),
  'present: EXPIRE': watchX([['b', 'EXPIRE', 'x', '100']], [['c', 'SET', 'x', '1']]),
  'present: same key in another database': watchX([['b', 'SELECT', '1'], ['b', 'SET', 'x', '2']], [['c', 'SET', 'x', '1']]),
  'present: SWAPDB away': watchX([['b', 'SWAPDB', '0', '1']], [['c', 'SET', 'x', '1']]),
  'present: untouched': watchX([['b', 'GET', 'x'], ['b', 'SET', 'y', '1']], [['c', 'SET', 'x', '1']]),
};

let redis: RedisServer;
let one: RunningServer;
let two: RunningServer;
const schema = uniqueSchema('watch');
before(async () => {
  [redis, one] = await Promise.all([startRedis(), startServer(['--workers', '2', '--storage-mode', 'unlogged'], { schema })]);
  two = await startServer(['--workers', '1', '--storage-mode', 'unlogged'], { schema });
});
after(async () => {
  await Promise.all([redis?.stop(), one?.stop(), two?.stop()]);
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`))).catch(() => undefined);
});

async function run(ports: Record<Client, number>, steps: Step[]): Promise<string[]> {
  const conns = {} as Record<Client, FrameConn>;
  for (const c of ['a', 'b', 'c'] as Client[]) conns[c] = await FrameConn.connect(ports[c]);
  const out: string[] = [];
  try {
    conns.a.write(encode('FLUSHALL'));
    await conns.a.read(1);
    for (const step of steps) {
      if (step[0] === 'sleep') { await new Promise((r) => setTimeout(r, step[1])); continue; }
      const [who, ...cmd] = step;
      conns[who].write(encode(...cmd));
      const r = await conns[who].read(1, 10000);
      out.push(`${who} ${cmd.join(' ')} → ${r.frames[0] === undefined ? `<${r.stopped}>` : show(r.frames[0])}`);
    }
  } finally {
    for (const c of Object.values(conns)) c.close();
  }
  return out;
}

describe('WATCH compared with redis-server, touches from a second PostRESP process', () => {
  for (const [name, steps] of Object.entries(kCases)) {
    it(name, async () => {
      const expected = await run({ a: redis.port, b: redis.port, c: redis.port }, steps);
      const actual = await run({ a: one.port, b: two.port, c: one.port }, steps);
      assert.deepEqual(actual, expected);
    });
  }
});
