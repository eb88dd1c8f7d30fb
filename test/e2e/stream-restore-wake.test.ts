/**
 * RESTORE of a stream wakes the XREAD / XREADGROUP BLOCK calls waiting on its key, as Redis 7.0's
 * dbAdd signals the key ready: from the other instance, from the other worker of the same
 * instance, inside MULTI and from a script. The payload is the server's own DUMP of another key.
 * (test/differential/blocking-streams.test.ts compares the same with redis-server on one instance.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encode, RawClient } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';

const schema = uniqueSchema('stream_restore');
let a: RunningServer;
let b: RunningServer;
const open: RawClient[] = [];

before(async () => {
  [a, b] = await Promise.all([startServer(['--workers', '2'], { schema }), startServer(['--workers', '2'], { schema })]);
});
after(async () => {
  for (const c of open) c.close();
  await Promise.all([a.stop(), b.stop()]);
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
});

async function client(s: RunningServer): Promise<RawClient> {
  const c = await RawClient.connect(s.port);
  open.push(c);
  return c;
}

async function blocked(s: RunningServer, n: number): Promise<void> {
  const c = await client(s);
  for (let i = 0; ; i++) {
    const info = String(await c.call('INFO', 'clients'));
    if (info.includes(`blocked_clients:${n}\r\n`)) break;
    if (i > 1000) throw new Error(`blocked_clients never ${n}:\n${info}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  c.close();
}

/** a reply or 'still blocked' after ms */
const within = (p: Promise<unknown>, ms: number) =>
  Promise.race([p, new Promise((r) => setTimeout(() => r('still blocked'), ms))]);

const entry = (key: string) => [[key, [['5-0', ['f', 'v']]]]];

type Restore = (w: RawClient, key: string, payload: Buffer, replace: boolean) => Promise<unknown>;
const kWays: [string, Restore][] = [
  ['RESTORE on the other instance', (w, key, payload, replace) => w.call('RESTORE', key, '0', payload, ...(replace ? ['REPLACE'] : []))],
  ['RESTORE inside MULTI on the other instance', async (w, key, payload, replace) => {
    await w.call('MULTI');
    await w.call('RESTORE', key, '0', payload, ...(replace ? ['REPLACE'] : []));
    return w.call('EXEC');
  }],
  ['RESTORE from a script on the other instance', (w, key, _payload, replace) =>
    w.call('EVAL', `return redis.call("RESTORE", KEYS[1], 0, redis.call("DUMP", KEYS[2])${replace ? ', "REPLACE"' : ''})`, '2', key, 'src')],
];

describe('RESTORE of a stream wakes blocked stream reads', () => {
  before(async () => {
    const w = await client(b);
    // a stream with entry 5-0 and group g that has delivered nothing
    await w.call('XGROUP', 'CREATE', 'src', 'g', '0', 'MKSTREAM');
    await w.call('XADD', 'src', '5-0', 'f', 'v');
  });

  for (const [how, restore] of kWays) {
    it(`${how}: a blocked XREAD on a new key and a blocked XREADGROUP under REPLACE are served`, async () => {
      const [x, y] = [`x:${how}`, `y:${how}`];
      const [reader, member, writer] = [await client(a), await client(a), await client(b)];
      const payload = Buffer.from(await writer.call('DUMP', 'src') as string, 'latin1');
      reader.send(encode('XREAD', 'BLOCK', '0', 'STREAMS', x, '0'));
      await writer.call('XGROUP', 'CREATE', y, 'g', '$', 'MKSTREAM');
      member.send(encode('XREADGROUP', 'GROUP', 'g', 'm', 'BLOCK', '0', 'STREAMS', y, '>'));
      await blocked(a, 2);
      await restore(writer, x, payload, false);
      assert.deepEqual(await within(reader.read(1), 3000), [entry(x)]);
      await restore(writer, y, payload, true);
      assert.deepEqual(await within(member.read(1), 3000), [entry(y)]);
      assert.deepEqual(await writer.call('XPENDING', y, 'g'), [1, '5-0', '5-0', [['m', '1']]]);
    });
  }
});
