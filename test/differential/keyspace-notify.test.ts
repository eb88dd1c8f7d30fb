/**
 * Differential: keyspace notifications against redis-server 7.0.15, as a client sees them. Both
 * servers run every case of write-events-cases.ts with the same notify-keyspace-events and a
 * subscriber on PSUBSCRIBE *; the channel and message of every pmessage must be the same, in the
 * same order. The setup runs with notifications off; a PUBLISH on a fence channel after the
 * command closes each case (it leaves behind the command's events: one publisher, in order).
 * `expired` is left out of the table (Redis's active expiry and our sweeper fire it on their own
 * schedule) and checked on its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient, encode, type Value } from '../e2e/resp-client';
import { Oracle } from './oracle';
import { kEventCases, type EventCase } from './write-events-cases';
import { compareNotifications } from './keyspace-notify-compare';

const kFence = 'postresp-test-fence';

let oracle: Oracle;
before(async () => { oracle = await Oracle.start(['--workers', '2', '--storage-mode', 'unlogged']); });
after(async () => { await oracle?.stop(); });

const compare = (cases: readonly EventCase[], flags: string): Promise<number> => compareNotifications(oracle, cases, flags);

/**
 * With KEA on and sub on PSUBSCRIBE *: the commands in one write from cmd, their replies, and
 * every pmessage sub saw (`channel message`) up to a fence PUBLISHed after the replies.
 */
async function pipelineEvents(sub: RawClient, cmd: RawClient, commands: string[][]): Promise<[Value[], string[]]> {
  await cmd.call('CONFIG', 'SET', 'notify-keyspace-events', 'KEA');
  sub.send(encode('PSUBSCRIBE', '*'));
  await sub.read(1);
  cmd.send(Buffer.concat(commands.map((p) => encode(...p))));
  const replies = await cmd.read(commands.length);
  await cmd.call('PUBLISH', kFence, 'x');
  const got: string[] = [];
  for (;;) {
    const [m] = await sub.read(1) as Value[][];
    if (m[2] === kFence) break;
    got.push(`${m[2]} ${m[3]}`);
  }
  await cmd.call('CONFIG', 'SET', 'notify-keyspace-events', '');
  return [replies, got];
}

describe('keyspace notifications vs redis-server', () => {
  it('KEA: every write command\'s cases, both channel kinds', async () => {
    assert.ok(await compare(kEventCases, 'KEA') > 200);
  });

  it('one class at a time picks its events (a fifth of the cases)', async () => {
    const some = kEventCases.filter((_, i) => i % 5 === 0);
    for (const flags of ['Kl', 'E$g', 'Eshz', 'Kh', 'Ex']) await compare(some, flags);
  });

  it('pipelined pops of one key (merged runs: LPOP/RPOP, ZPOPMIN/ZPOPMAX, SPOP): each pop its event, `del` after the one that emptied it', async () => {
    // pops sent in one write reach the lane together: list/pop-batch.ts runs them as one call
    const pops = [['LPOP', 'l'], ['LPOP', 'l', '2'], ['RPOP', 'l'], ['RPOP', 'l', '0'], ['LPOP', 'l', '3'], ['LPOP', 'l'],
      ['LPOP', 'l', '2'], ['RPUSH', 'l', 'z'], ['RPOP', 'l', '5'], ['RPOP', 'l'], ['LPOP', 'm', '1'],
      ['ZPOPMIN', 'z'], ['ZPOPMIN', 'z', '2'], ['ZPOPMIN', 'z', '0'], ['ZPOPMIN', 'z'], ['ZPOPMIN', 'z'], ['ZPOPMAX', 'z'],
      ['SPOP', 's'], ['SPOP', 's', '1'], ['SPOP', 's', '0'], ['SPOP', 's'], ['SPOP', 's', '3'], ['SPOP', 's']];
    // which members SPOP takes is random: its replies are compared by count
    const shape = (v: Value): Value => (Array.isArray(v) ? v.length : v === null ? null : 1);
    const run = async (port: number): Promise<[Value[], string[]]> => {
      const sub = await RawClient.connect(port);
      const cmd = await RawClient.connect(port);
      try {
        await cmd.call('FLUSHALL');
        await cmd.call('RPUSH', 'l', 'a', 'b', 'c', 'd', 'e', 'f');
        await cmd.call('ZADD', 'z', '1', 'a', '2', 'b', '3', 'c', '4', 'd');
        await cmd.call('SADD', 's', 'a', 'b', 'c', 'd');
        const [replies, got] = await pipelineEvents(sub, cmd, pops);
        return [replies.map((v, i) => (pops[i][0] === 'SPOP' ? shape(v) : v)), got];
      } finally {
        sub.close();
        cmd.close();
      }
    };
    assert.deepEqual(await run(oracle.postresp.port), await run(oracle.redis.port));
  });

  it('a PUBLISH pipelined behind writes arrives after their events, as from Redis (subscriber on the other worker and on the same one)', async () => {
    const pipeline = [['SET', 'a', '1'], ['PUBLISH', 'ch', 'm1'], ['RPUSH', 'l', 'x', 'y'], ['INCR', 'c'], ['PUBLISH', 'ch', 'm2'],
      ['HSET', 'h', 'f', 'v'], ['DEL', 'a'], ['SPUBLISH', 'ch', 'm3'], ['PUBLISH', 'ch', 'm4'], ['SET', 'b', '2']];
    const run = async (port: number, spacer: boolean): Promise<[Value[], string[]]> => {
      // connections go to the worker with the fewest: a spacer between the two puts them on one
      const sub = await RawClient.connect(port);
      const gap = spacer ? await RawClient.connect(port) : undefined;
      const cmd = await RawClient.connect(port);
      try {
        await cmd.call('FLUSHALL');
        return await pipelineEvents(sub, cmd, pipeline);
      } finally {
        sub.close();
        gap?.close();
        cmd.close();
      }
    };
    for (const spacer of [false, true]) {
      const ours = await run(oracle.postresp.port, spacer);
      assert.ok(ours[1].length > 10, ours[1].join('\n'));
      assert.deepEqual(ours, await run(oracle.redis.port, spacer), `spacer ${spacer}`);
    }
  });

  it('the sweeper\'s expired, both channel kinds, like Redis\'s background expiry', async () => {
    const run = async (port: number): Promise<string[]> => {
      const sub = await RawClient.connect(port);
      const cmd = await RawClient.connect(port);
      try {
        await cmd.call('CONFIG', 'SET', 'notify-keyspace-events', 'KEA');
        sub.send(encode('PSUBSCRIBE', '*'));
        await sub.read(1);
        await cmd.call('SELECT', '4');
        await cmd.call('PSETEX', 'foo', '100', 'v');
        const got: string[] = [];
        while (!got.includes('__keyevent@4__:expired foo')) {
          const [m] = await sub.read(1) as Value[][];
          got.push(`${m[2]} ${m[3]}`);
        }
        await cmd.call('CONFIG', 'SET', 'notify-keyspace-events', '');
        return got;
      } finally {
        sub.close();
        cmd.close();
      }
    };
    assert.deepEqual(await run(oracle.postresp.port), await run(oracle.redis.port));
  });
});
