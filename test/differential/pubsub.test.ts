/**
 * Differential: pub/sub against redis-server 7.0.15, byte for byte. Each scenario drives a few
 * connections in a fixed order: a step sends a command on one connection (or none) and reads the
 * frames that connection must get — a SUBSCRIBE of two channels answers two, a message arrives
 * on the subscriber after the publisher's reply. Both servers must send the same frames at each
 * step and nothing more (every connection ends with a PING whose reply must come next). With two
 * workers, the primary deals the connections to both: publisher and subscriber sit on
 * different threads.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encode } from '../e2e/resp-client';
import { Oracle } from './oracle';
import { FrameConn, show } from './resp-frames';

/**
 * [connection, command or null (only read), frames to read, how to compare: 'type' by reply type
 * only, 'any' in any order (a message matching several patterns: Redis walks its patterns in
 * hash order, seeded at random when it starts)]
 */
type Step = [number, (string | Buffer)[] | null, number, ('type' | 'any')?];

let oracle: Oracle;
before(async () => { oracle = await Oracle.start(['--workers', '2', '--storage-mode', 'unlogged']); });
after(async () => { await oracle?.stop(); });

async function play(port: number, conns: number, steps: Step[]): Promise<string[]> {
  const cs = await Promise.all(Array.from({ length: conns }, () => FrameConn.connect(port)));
  const out: string[] = [];
  try {
    for (const [c, cmd, n, how] of steps) {
      if (cmd) cs[c].write(encode(...cmd));
      const r = await cs[c].read(n, 5000);
      const got = r.frames.map((f) => (how === 'type' ? String.fromCharCode(f[0]) : show(f, 400)));
      if (how === 'any') got.sort();
      out.push(`#${c} ${cmd ? cmd.map((a) => show(Buffer.from(a), 40)).join(' ') : '(read)'} → ${got.join(' ')}${r.stopped ? ` <${r.stopped}>` : ''}`);
    }
    // nothing left over on any connection still open
    for (let c = 0; c < conns; c++) {
      cs[c].write(encode('PING', 'end'));
      const r = await cs[c].read(1, 5000);
      out.push(`#${c} PING end → ${r.frames.map((f) => show(f)).join(' ')}${r.stopped ? ` <${r.stopped}>` : ''}`);
    }
  } finally {
    for (const c of cs) c.close();
  }
  return out;
}

async function compare(conns: number, steps: Step[]): Promise<void> {
  const expected = await play(oracle.redis.port, conns, steps);
  const actual = await play(oracle.postresp.port, conns, steps);
  assert.deepEqual(actual, expected);
}

const big = Buffer.alloc(100_000, 0);
for (let i = 0; i < big.length; i++) big[i] = (i * 7919) & 0xff;
const binChannel = Buffer.from([0, 0xff, 13, 10, 42, 0x80]);

describe('pub/sub vs redis-server', () => {
  it('RESP2: subscribed mode, messages, patterns, shard channels, counts, unsubscribing', () => compare(2, [
    [0, ['SUBSCRIBE', 'a', 'b'], 2], [0, ['GET', 'x'], 1], [0, ['CLIENT', 'LIST'], 1], [0, ['HELLO', '3'], 1],
    [0, ['PING'], 1], [0, ['PING', 'hi'], 1], [0, ['NOSUCH'], 1], [0, ['PING', 'a', 'b'], 1],
    [1, ['PUBLISH', 'a', 'hello'], 1], [0, null, 1],
    [0, ['PSUBSCRIBE', 'a*', 'b?'], 2], [0, ['SUBSCRIBE', 'a'], 1],
    [1, ['PUBLISH', 'a', 'two'], 1], [0, null, 2], [1, ['PUBLISH', 'bb', 'p'], 1], [0, null, 1],
    [0, ['SSUBSCRIBE', 's', 't'], 2], [1, ['SPUBLISH', 's', 'x'], 1], [0, null, 1], [1, ['PUBLISH', 's', 'x'], 1],
    [1, ['PUBSUB', 'NUMSUB', 'a', 'b', 'zz'], 1], [1, ['PUBSUB', 'NUMPAT'], 1], [1, ['PUBSUB', 'SHARDNUMSUB', 's', 'q'], 1],
    [1, ['PUBSUB', 'CHANNELS', 'a'], 1], [1, ['PUBSUB', 'CHANNELS', 'z*'], 1], [1, ['PUBSUB', 'SHARDCHANNELS', 't'], 1],
    [0, ['UNSUBSCRIBE', 'a', 'nope', 'b'], 3], [0, ['PUNSUBSCRIBE', 'a*'], 1], [0, ['PUNSUBSCRIBE'], 1],
    [0, ['GET', 'x'], 1], [0, ['SUNSUBSCRIBE', 's', 't'], 2], [0, ['GET', 'x'], 1],
    [0, ['UNSUBSCRIBE'], 1], [0, ['PUNSUBSCRIBE'], 1], [0, ['SUNSUBSCRIBE'], 1],
    [1, ['PUBLISH', 'a', 'gone'], 1], [1, ['PUBSUB', 'NUMSUB', 'a'], 1], [1, ['PUBSUB', 'NUMPAT'], 1],
  ]));

  it('RESP3: pushes between replies, own messages before PUBLISH\'s reply, CLIENT REPLY OFF', () => compare(2, [
    [0, ['HELLO', '3'], 1, 'type'], [0, ['SUBSCRIBE', 'a'], 1], [0, ['GET', 'x'], 1], [0, ['PING'], 1],
    [0, ['PSUBSCRIBE', '*'], 1], [1, ['PUBLISH', 'a', 'v'], 1], [0, null, 2], [0, ['PUBLISH', 'a', 'self'], 3],
    [0, ['CLIENT', 'REPLY', 'OFF'], 0], [0, ['SUBSCRIBE', 'q'], 1], [0, ['PING'], 0], [1, ['PUBLISH', 'q', 'w'], 1],
    [0, null, 2], [0, ['CLIENT', 'REPLY', 'ON'], 1],
    [0, ['UNSUBSCRIBE', 'a', 'q'], 2], [0, ['PUNSUBSCRIBE', '*'], 1], [0, ['UNSUBSCRIBE'], 1], [0, ['SSUBSCRIBE', 'x'], 1],
    [0, ['SUNSUBSCRIBE'], 1],
  ]));

  it('errors, arity, PUBSUB HELP, RESET and QUIT in subscribed mode', () => compare(3, [
    [0, ['SUBSCRIBE'], 1], [0, ['PSUBSCRIBE'], 1], [0, ['SSUBSCRIBE'], 1], [0, ['PUBLISH', 'a'], 1],
    [0, ['SPUBLISH', 'a', 'b', 'c'], 1], [0, ['PUBSUB'], 1], [0, ['PUBSUB', 'HELP'], 1], [0, ['PUBSUB', 'help', 'x'], 1],
    [0, ['PUBSUB', 'FOO'], 1], [0, ['PUBSUB', 'CHANNELS', 'a', 'b'], 1], [0, ['PUBSUB', 'shardchannels', 'a', 'b'], 1],
    [0, ['PUBSUB', 'NUMSUB'], 1], [0, ['PUBSUB', 'NUMPAT', 'x'], 1], [0, ['PUNSUBSCRIBE', 'x', 'y'], 2],
    [1, ['SUBSCRIBE', 'c'], 1], [1, ['RESET'], 1], [1, ['GET', 'x'], 1], [0, ['PUBLISH', 'c', 'x'], 1],
    [1, ['HELLO', '3'], 1, 'type'], [1, ['SUBSCRIBE', 'c'], 1], [1, ['RESET'], 1], [1, ['GET', 'x'], 1],
    [0, ['PUBSUB', 'NUMSUB', 'c'], 1],
    [2, ['MULTI'], 1], [2, ['PUBLISH', 'c', 'x'], 1], [2, ['EXEC'], 1],
    [2, ['SUBSCRIBE', 'c'], 1], [2, ['MULTI'], 1], [2, ['QUIT'], 1],
  ]));

  it('binary channels and messages, glob patterns', () => compare(2, [
    [0, ['SUBSCRIBE', binChannel], 1], [0, ['PSUBSCRIBE', 'h[ae]llo', 'h?llo', 'h\\*', 'x*', '[^a]b', Buffer.from([0x80, 42])], 6],
    [1, ['PUBLISH', binChannel, big], 1], [0, null, 2],
    [1, ['PUBLISH', 'hallo', 'm'], 1], [0, null, 2, 'any'], [1, ['PUBLISH', 'h*', 'm'], 1], [0, null, 2, 'any'],
    [1, ['PUBLISH', 'xb', ''], 1], [0, null, 2, 'any'], [1, ['PUBLISH', 'ab', 'no'], 1],
    [1, ['PUBSUB', 'CHANNELS', Buffer.from([0, '*'.charCodeAt(0)])], 1], [1, ['PUBSUB', 'NUMSUB', binChannel], 1],
  ]));

  it('notify-keyspace-events: CONFIG SET and GET of every class letter', () => compare(1, [
    ...['KEA', 'K$', 'Kx', 'A', 'KA', 'gKE', 'Klshzxetmd', 'KEAn', 'KEm', 'z', 'Q', '', 'AE$', 'Eg$lshzxetd', 'KEAnm', 'Ed', 'gg', 'Kn']
      .flatMap((v): Step[] => [[0, ['CONFIG', 'SET', 'notify-keyspace-events', v], 1], [0, ['CONFIG', 'GET', 'notify-keyspace-events'], 1]]),
    [0, ['CONFIG', 'SET', 'notify-keyspace-events', ''], 1],
  ]));
});
