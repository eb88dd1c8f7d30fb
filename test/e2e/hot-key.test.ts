/**
 * Many clients on ONE key (redis-benchmark's INCR, pushes, pops, HSET, SADD, ZADD), pipelined,
 * on two workers: their lanes pass the key's row lock around and each lane merges its clients'
 * commands into one run (docs/BENCHMARKS.md "Hot keys"). Nothing may be lost or counted twice,
 * and each client's replies come in its commands' order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient, encode, type Value } from './resp-client';
import { startServer, type RunningServer } from './start-server';

let server: RunningServer;
let clients: RawClient[] = [];
const kClients = 16;

before(async () => {
  server = await startServer(['--workers', '2']);
  clients = await Promise.all(Array.from({ length: kClients }, () => RawClient.connect(server.port)));
});
after(async () => {
  for (const c of clients) c.socket.destroy();
  await server.stop();
});

/** every client pipelines its commands at once; resolves to each client's replies */
async function everyone(commands: (client: number) => string[][]): Promise<Value[][]> {
  const cmds = clients.map((_, i) => commands(i));
  clients.forEach((c, i) => c.send(Buffer.concat(cmds[i].map((a) => encode(...a)))));
  return Promise.all(clients.map((c, i) => c.read(cmds[i].length, 30000)));
}

const times = <T>(n: number, f: (j: number) => T): T[] => Array.from({ length: n }, (_, j) => f(j));
const sum = (xs: Value[]) => xs.reduce<number>((a, v) => a + Number(v), 0);

describe('one hot key from many clients on two workers', () => {
  it('INCR / INCRBY / DECRBY: no update lost, each client sees its own increasing values', async () => {
    await clients[0].call('DEL', 'hk:n');
    let total = 0;
    for (let round = 0; round < 2; round++) {
      // odd clients INCRBY 3, even ones INCR: every reply is distinct, and a client's next reply is
      // at least its own step above its last (its commands run in its order)
      const replies = await everyone((i) => times(40, () => (i % 2 === 1 ? ['INCRBY', 'hk:n', '3'] : ['INCR', 'hk:n'])));
      replies.forEach((r, i) => {
        const step = i % 2 === 1 ? 3n : 1n;
        total += Number(step) * r.length;
        for (let j = 1; j < r.length; j++) assert.ok((r[j] as bigint) - (r[j - 1] as bigint) >= step, `client ${i} reply ${j}`);
      });
      const all = replies.flat() as bigint[];
      assert.equal(new Set(all).size, all.length, 'two increments never see the same value');
    }
    // both signs in one run: only the sum can be checked
    const mixed = await everyone((i) => times(30, (j) => ((i + j) % 3 === 0 ? ['DECRBY', 'hk:n', '2'] : ['INCR', 'hk:n'])));
    mixed.forEach((r, i) => r.forEach((_, j) => { total += (i + j) % 3 === 0 ? -2 : 1; }));
    assert.equal(await clients[0].call('GET', 'hk:n'), String(total));
  });

  it('RPUSH then LPOP: every element popped once, each client\'s pushes in its order', async () => {
    await clients[0].call('DEL', 'hk:l');
    await everyone((i) => times(25, (j) => ['RPUSH', 'hk:l', `${i}:${j}`]));
    const list = (await clients[0].call('LRANGE', 'hk:l', '0', '-1')) as string[];
    assert.equal(list.length, kClients * 25);
    for (let i = 0; i < kClients; i++) {
      const mine = list.filter((e) => e.startsWith(`${i}:`)).map((e) => Number(e.split(':')[1]));
      assert.deepEqual(mine, times(25, (j) => j), `client ${i}'s pushes in order`);
    }
    const popped = (await everyone(() => times(27, () => ['LPOP', 'hk:l']))).flat();
    const got = popped.filter((v) => v !== null) as string[];
    assert.equal(got.length, kClients * 25);
    assert.deepEqual([...got].sort(), [...list].sort());
    assert.equal(await clients[0].call('EXISTS', 'hk:l'), 0);
  });

  it('HSET / SADD / ZADD of one name: exactly one client is credited with adding it', async () => {
    await clients[0].call('DEL', 'hk:h', 'hk:s', 'hk:z');
    const replies = await everyone((i) => times(10, (j) => [['HSET', 'hk:h', 'f', `${i}:${j}`], ['SADD', 'hk:s', 'm'], ['ZADD', 'hk:z', String(i), 'm']][j % 3]));
    const byCommand = [0, 1, 2].map((k) => replies.flatMap((r) => r.filter((_, j) => j % 3 === k)));
    assert.deepEqual(byCommand.map(sum), [1, 1, 1]);
    assert.equal(await clients[0].call('HLEN', 'hk:h'), 1);
    assert.equal(await clients[0].call('SCARD', 'hk:s'), 1);
  });
});
