/**
 * A push answers, and the commands pipelined behind it run, only after the blocked clients it
 * serves were served, as in Redis (which serves them before it runs anything else): with the
 * waiters on another PostRESP instance (the push waits for that instance's answer through
 * Postgres, docs/messaging.md "A push waits for the waiters it serves on other instances"), and
 * with the pusher's next commands in the same write as the push, on one instance and across two.
 * Each scenario runs on redis-server too (every client on it): its result is the ground truth.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { encode, RawClient, type Value } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { startRedis, type RedisServer } from '../differential/oracle';
import { withPg } from '../support/pg';
import { blockedClients } from './blocked-clients';

const schema = uniqueSchema('pushorder');
let a: RunningServer;
let b: RunningServer;
let redis: RedisServer;
let httpA: number;
const open: RawClient[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

before(async () => {
  httpA = await freePort();
  [a, b, redis] = await Promise.all([startServer(['--workers', '2', '--http-port', String(httpA)], { schema }),
    startServer(['--workers', '2'], { schema }), startRedis()]);
  idleInterest = await remoteInterest();
});
after(async () => {
  for (const c of open) c.close();
  await Promise.all([a?.stop(), b?.stop(), redis?.stop()]);
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
});

/** Where a scenario's clients connect: the waiters' server and the pusher's (a port each). */
interface Sides { waiters: number; pusher: number; redis: boolean }

async function client(port: number): Promise<RawClient> {
  const c = await RawClient.connect(port);
  open.push(c);
  return c;
}

const blocked = blockedClients;

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${httpA}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
}

const remoteInterest = () => metric('postresp_bus_remote_interest');

/** A's count of B's interest keys with nothing blocked on B (read once both run) */
let idleInterest = 0;

/**
 * A's count of B's interest keys, once the earlier scenarios' keys left it: a blocked key stays
 * registered 250 ms after its last waiter (core/bus/hub.ts keyLingerMs), so a count read earlier
 * could fall meanwhile and never reach the new keys' sum.
 */
async function interestBefore(s: Sides): Promise<number> {
  if (s.redis) return 0;
  for (let i = 0; await remoteInterest() > idleInterest; i++) {
    if (i > 500) throw new Error('B\'s blocked keys never left A\'s view');
    await new Promise((r) => setTimeout(r, 10));
  }
  return idleInterest;
}

/**
 * The waiters blocked on `keys`, and, when they are on B and the pusher on A, A knows it (B's
 * blocked keys in A's view: else A's push would not be sent to B at all and B's waiters would only
 * find the element when their registration completes, a different race than the one tested).
 */
async function ready(s: Sides, n: number, newKeys: number, interestBefore: number): Promise<void> {
  await blocked(s.waiters, n);
  if (s.redis || s.waiters === s.pusher || newKeys === 0) return;
  for (let i = 0; await remoteInterest() < interestBefore + newKeys; i++) {
    if (i > 1000) throw new Error('instance A never learned of B\'s blocked keys');
    await new Promise((r) => setTimeout(r, 10));
  }
  // A's workers get the view right after the gauge moved (one MessagePort hop)
  await new Promise((r) => setTimeout(r, 100));
}

let round = 0;

/** Redis 7.0's unit/type/list "Linked LMOVEs": RPUSH, then LRANGE of the three lists. */
async function linked(s: Sides, pipelined: boolean): Promise<Value> {
  const r = `${++round}`;
  const [l1, l2, l3] = [`list1:${r}`, `list2:${r}`, `list3:${r}`];
  const before = await interestBefore(s);
  const [w1, w2, pusher] = [await client(s.waiters), await client(s.waiters), await client(s.pusher)];
  w1.send(encode('BLMOVE', l1, l2, 'RIGHT', 'LEFT', '0'));
  await blocked(s.waiters, 1);
  w2.send(encode('BLMOVE', l2, l3, 'LEFT', 'RIGHT', '0'));
  await ready(s, 2, 2, before);
  let seen: Value[];
  if (pipelined) {
    pusher.send(Buffer.concat([encode('RPUSH', l1, 'foo'), encode('LRANGE', l1, '0', '-1'), encode('LRANGE', l2, '0', '-1'),
      encode('LRANGE', l3, '0', '-1')]));
    seen = await pusher.read(4);
  } else {
    seen = [await pusher.call('RPUSH', l1, 'foo'), await pusher.call('LRANGE', l1, '0', '-1'),
      await pusher.call('LRANGE', l2, '0', '-1'), await pusher.call('LRANGE', l3, '0', '-1')];
  }
  seen.push(...await w1.read(1), ...await w2.read(1));
  for (const c of [w1, w2, pusher]) c.close();
  return seen;
}

/** Redis 7.0's unit/type/list "Circular BRPOPLPUSH". */
async function circular(s: Sides, pipelined: boolean): Promise<Value> {
  const r = `${++round}`;
  const [l1, l2] = [`list1:${r}`, `list2:${r}`];
  const before = await interestBefore(s);
  const [w1, w2, pusher] = [await client(s.waiters), await client(s.waiters), await client(s.pusher)];
  w1.send(encode('BRPOPLPUSH', l1, l2, '0'));
  await blocked(s.waiters, 1);
  w2.send(encode('BRPOPLPUSH', l2, l1, '0'));
  await ready(s, 2, 2, before);
  let seen: Value[];
  if (pipelined) {
    pusher.send(Buffer.concat([encode('RPUSH', l1, 'foo'), encode('LRANGE', l1, '0', '-1'), encode('LRANGE', l2, '0', '-1')]));
    seen = await pusher.read(3);
  } else {
    seen = [await pusher.call('RPUSH', l1, 'foo'), await pusher.call('LRANGE', l1, '0', '-1'), await pusher.call('LRANGE', l2, '0', '-1')];
  }
  seen.push(...await w1.read(1), ...await w2.read(1));
  for (const c of [w1, w2, pusher]) c.close();
  return seen;
}

/** A BLPOP served by an RPUSH pipelined with an LLEN and a second RPUSH, then LRANGE. */
async function pipelinedPushes(s: Sides): Promise<Value> {
  const k = `q:${++round}`;
  const before = await interestBefore(s);
  const [w, pusher] = [await client(s.waiters), await client(s.pusher)];
  w.send(encode('BLPOP', k, '0'));
  await ready(s, 1, 1, before);
  pusher.send(Buffer.concat([encode('RPUSH', k, 'a'), encode('LLEN', k), encode('RPUSH', k, 'b'), encode('LRANGE', k, '0', '-1')]));
  const seen = await pusher.read(4);
  const [[key, element]] = await w.read(1) as [[string, string]];
  seen.push([key === k ? 'q' : key, element]);
  for (const c of [w, pusher]) c.close();
  return seen;
}

/** Commands with `{r}` standing for the round's number. */
type Cmds = string[][];
const inRound = (cmds: Cmds, r: string): string[][] => cmds.map((c) => c.map((a) => a.replaceAll('{r}', r)));

/**
 * One waiter (its commands; the last one blocks) on one key, then the pusher's commands in one
 * write, after `setup` (the pusher's, one at a time): the pusher's replies, then the waiter's.
 */
function oneWaiter(setup: Cmds, wait: Cmds, pushes: Cmds): (s: Sides) => Promise<Value> {
  return async (s) => {
    // (a token no reply holds by chance: the waiter's reply names its key)
    const r = `r${++round}r`;
    const before = await interestBefore(s);
    const [w, pusher] = [await client(s.waiters), await client(s.pusher)];
    for (const c of inRound(setup, r)) await pusher.call(...c);
    const waiting = inRound(wait, r);
    for (const c of waiting.slice(0, -1)) await w.call(...c);
    w.send(encode(...waiting[waiting.length - 1]!));
    await ready(s, 1, 1, before);
    const cmds = inRound(pushes, r);
    pusher.send(Buffer.concat(cmds.map((c) => encode(...c))));
    const seen = await pusher.read(cmds.length);
    seen.push(...await w.read(1));
    for (const c of [w, pusher]) c.close();
    return JSON.parse(JSON.stringify(seen).replaceAll(r, '{r}')) as Value;
  };
}

/** runs `scenario` on redis-server once and `rounds` times on PostRESP: the rounds that differ */
async function compare(scenario: (s: Sides) => Promise<Value>, sides: Omit<Sides, 'redis'>, rounds: number): Promise<{ truth: Value; wrong: string[] }> {
  const truth = await scenario({ waiters: redis.port, pusher: redis.port, redis: true });
  const wrong: string[] = [];
  for (let i = 0; i < rounds; i++) {
    const got = await scenario({ ...sides, redis: false });
    if (JSON.stringify(got) !== JSON.stringify(truth)) wrong.push(JSON.stringify(got));
  }
  return { truth, wrong };
}

describe('a push waits for the blocked clients it serves (vs redis-server)', () => {
  // on main's code, waiters on B and the push on A: linked 20/20 wrong (the element still in list2)
  it('waiters on instance B, push on A: linked BLMOVEs and circular BRPOPLPUSH, RPUSH then LRANGE', async () => {
    const sides = { waiters: b.port, pusher: a.port };
    for (const [name, scenario] of [['linked', linked], ['circular', circular]] as const) {
      const { truth, wrong } = await compare((s) => scenario(s, false), sides, 5);
      assert.deepEqual(wrong, [], `${name}: redis-server ${JSON.stringify(truth)}; ${wrong.length}/5 rounds differ`);
    }
  });

  /** linked, circular and the pushes scenario with the pusher's commands in one write: rounds unlike redis-server's */
  async function pipelinedScenarios(sides: Omit<Sides, 'redis'>): Promise<void> {
    for (const [name, scenario] of [['linked', (s: Sides) => linked(s, true)], ['circular', (s: Sides) => circular(s, true)],
      ['pushes', pipelinedPushes]] as const) {
      const { truth, wrong } = await compare(scenario, sides, 5);
      assert.deepEqual(wrong, [], `${name}: redis-server ${JSON.stringify(truth)}; ${wrong.length}/5 rounds differ`);
    }
  }

  it('commands pipelined behind the push run after the clients it serves, on one instance', async () => {
    await pipelinedScenarios({ waiters: a.port, pusher: a.port });
  });

  it('commands pipelined behind the push run after the clients it serves on the other instance; no wait given up', async () => {
    await pipelinedScenarios({ waiters: b.port, pusher: a.port });
    // every push above waited for B's answer, none for the timeout
    assert.ok(await metric('postresp_bus_served_waits_total') >= 30);
    assert.equal(await metric('postresp_bus_served_timeouts_total'), 0);
  });

  it('an instance that does not answer (stopped) holds a push 1 s at most, counted; its waiter is served once it runs', async () => {
    const k = `stopped:${++round}`;
    const before = await interestBefore({ waiters: b.port, pusher: a.port, redis: false });
    const timeouts = await metric('postresp_bus_served_timeouts_total');
    const [w, pusher] = [await client(b.port), await client(a.port)];
    w.send(encode('BLPOP', k, '0'));
    await ready({ waiters: b.port, pusher: a.port, redis: false }, 1, 1, before);
    b.child.kill('SIGSTOP');
    try {
      const t0 = Date.now();
      assert.equal(await pusher.call('RPUSH', k, 'x'), 1);
      const waited = Date.now() - t0;
      assert.ok(waited >= 900 && waited < 5000, `the push answered after ${waited} ms`);
      assert.equal(await metric('postresp_bus_served_timeouts_total'), timeouts + 1);
      assert.match(String(await pusher.call('INFO', 'stats')), new RegExp(`\r\npostresp_bus_served_timeouts:${timeouts + 1}\r\n`));
    } finally {
      b.child.kill('SIGCONT');
    }
    assert.deepEqual(await w.read(1), [[k, 'x']]);
  });
});

/**
 * The writes whose waited key is not one of their own keys in the client's db (push-gate.ts):
 * on main's code none of these held the pipelined read, which ran before the waiter on the other
 * instance was served (each scenario: 3/3 rounds unlike redis-server).
 */
describe('commands pipelined behind a write that serves a waiter elsewhere: keys in another db, scripts', () => {
  const scenarios: [name: string, scenario: (s: Sides) => Promise<Value>][] = [
    ['SELECT inside MULTI before the push', oneWaiter([], [['SELECT', '1'], ['BLPOP', 'm{r}', '0']],
      [['MULTI'], ['SELECT', '1'], ['RPUSH', 'm{r}', 'a'], ['EXEC'], ['LRANGE', 'm{r}', '0', '-1']])],
    ['MOVE into the waiter\'s db', oneWaiter([], [['SELECT', '1'], ['BLPOP', 'mv{r}', '0']],
      [['RPUSH', 'mv{r}', 'a'], ['MOVE', 'mv{r}', '1'], ['SELECT', '1'], ['LRANGE', 'mv{r}', '0', '-1']])],
    ['SWAPDB bringing the list into the waiter\'s db', oneWaiter([], [['SELECT', '2'], ['BLPOP', 'sw{r}', '0']],
      [['SELECT', '3'], ['RPUSH', 'sw{r}', 'a'], ['SWAPDB', '2', '3'], ['SELECT', '2'], ['LRANGE', 'sw{r}', '0', '-1']])],
    // Redis answers the blocked XREADGROUP UNBLOCKED before the stream and group are made again
    ['FLUSHDB under a blocked XREADGROUP', oneWaiter([['SELECT', '4'], ['XGROUP', 'CREATE', 'fl{r}', 'g', '$', 'MKSTREAM']],
      [['SELECT', '4'], ['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '0', 'STREAMS', 'fl{r}', '>']],
      [['FLUSHDB'], ['XGROUP', 'CREATE', 'fl{r}', 'g', '$', 'MKSTREAM'], ['XADD', 'fl{r}', '1-1', 'f', 'v']])],
    ['a script\'s undeclared key', oneWaiter([], [['BLPOP', 'ev{r}', '0']],
      [['EVAL', 'return redis.call(\'rpush\', ARGV[1], \'a\')', '0', 'ev{r}'], ['LRANGE', 'ev{r}', '0', '-1']])],
  ];
  for (const [name, scenario] of scenarios) {
    it(`${name}: waiter on instance B, the write and a pipelined read on A`, async () => {
      const { truth, wrong } = await compare(scenario, { waiters: b.port, pusher: a.port }, 3);
      assert.deepEqual(wrong, [], `redis-server ${JSON.stringify(truth)}; ${wrong.length}/3 rounds differ`);
    });
  }
});
