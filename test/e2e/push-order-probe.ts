/**
 * Not a test: the probe docs/BENCHMARKS.md quotes ("A push waits for the waiters it serves on other
 * instances"). Redis 7.0's "Linked LMOVEs" and "Circular BRPOPLPUSH" with the waiters on instance
 * B and the pusher on A, and the linked case with the RPUSH and the LRANGEs in one write (all on
 * A, then waiters on B); prints the rounds whose replies differ from Redis's.
 *
 *   node dist/test/e2e/push-order-probe.js <port A> <port B> [rounds = 20]
 */
import { encode, RawClient, type Value } from './resp-client';
import { blockedClients } from './blocked-clients';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const blocked = (port: number, n: number) => blockedClients(port, n, 5);

let round = 0;

async function linked(wp: number, pp: number, pipelined: boolean): Promise<boolean> {
  const s = `${process.pid}:${++round}`;
  const [l1, l2, l3] = [`l1:${s}`, `l2:${s}`, `l3:${s}`];
  const [w1, w2, p] = [await RawClient.connect(wp), await RawClient.connect(wp), await RawClient.connect(pp)];
  w1.send(encode('BLMOVE', l1, l2, 'RIGHT', 'LEFT', '0'));
  await blocked(wp, 1);
  w2.send(encode('BLMOVE', l2, l3, 'LEFT', 'RIGHT', '0'));
  await blocked(wp, 2);
  // A learns of B's blocked keys through Postgres
  if (wp !== pp) await sleep(200);
  let got: Value[];
  if (pipelined) {
    p.send(Buffer.concat([encode('RPUSH', l1, 'foo'), encode('LRANGE', l1, '0', '-1'), encode('LRANGE', l2, '0', '-1'), encode('LRANGE', l3, '0', '-1')]));
    got = await p.read(4);
  } else {
    got = [await p.call('RPUSH', l1, 'foo'), await p.call('LRANGE', l1, '0', '-1'), await p.call('LRANGE', l2, '0', '-1'), await p.call('LRANGE', l3, '0', '-1')];
  }
  await w1.read(1);
  await w2.read(1);
  for (const c of [w1, w2, p]) c.close();
  return JSON.stringify(got) === JSON.stringify([1, [], [], ['foo']]);
}

async function circular(wp: number, pp: number): Promise<boolean> {
  const s = `${process.pid}:${++round}`;
  const [l1, l2] = [`c1:${s}`, `c2:${s}`];
  const [w1, w2, p] = [await RawClient.connect(wp), await RawClient.connect(wp), await RawClient.connect(pp)];
  w1.send(encode('BRPOPLPUSH', l1, l2, '0'));
  await blocked(wp, 1);
  w2.send(encode('BRPOPLPUSH', l2, l1, '0'));
  await blocked(wp, 2);
  if (wp !== pp) await sleep(200);
  const got = [await p.call('RPUSH', l1, 'foo'), await p.call('LRANGE', l1, '0', '-1'), await p.call('LRANGE', l2, '0', '-1')];
  await w1.read(1);
  await w2.read(1);
  for (const c of [w1, w2, p]) c.close();
  return JSON.stringify(got) === JSON.stringify([1, ['foo'], []]);
}

async function main(): Promise<void> {
  const [pa, pb, n = 20] = process.argv.slice(2).map(Number);
  const cases: [string, () => Promise<boolean>][] = [
    ['linked, waiters B, push A', () => linked(pb!, pa!, false)],
    ['circular, waiters B, push A', () => circular(pb!, pa!)],
    ['linked pipelined, all on A', () => linked(pa!, pa!, true)],
    ['linked pipelined, waiters B, push A', () => linked(pb!, pa!, true)],
  ];
  for (const [name, run] of cases) {
    let wrong = 0;
    const t0 = Date.now();
    for (let i = 0; i < n; i++) if (!(await run())) wrong++;
    console.log(`${name}: wrong ${wrong}/${n} (${Date.now() - t0} ms)`);
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
