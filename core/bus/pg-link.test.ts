// Two instances (a hub, its PgLink and two worker ends each) on the test Postgres, one schema:
// what crosses, in what order, what does not, and the LISTEN/NOTIFY limits (docs/messaging.md).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../primary/postgres/migrations';
import { startupOptions } from '../primary/postgres/schema';
import { freshSchema, testPgUrl, withPg } from '../../test/support/pg';
import { recorder } from './test-recorder';
import { inThreadBus, type InThreadBus } from './in-thread';

const b = (s: string) => Buffer.from(s);
const turn = () => new Promise((r) => setTimeout(r, 5));
async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await turn();
  }
}

describe('PgLink: two instances on one schema', { timeout: 60_000, skip: process.env.DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  let schema: { schema: string; drop(): Promise<void> };
  let A: InThreadBus;
  let B: InThreadBus;
  const logs: string[] = [];
  const start = () => inThreadBus(2, {
    link: { url: testPgUrl(), startupOptions: startupOptions('unlogged', schema.schema), schema: schema.schema, healthMs: 60_000 },
    log: (l) => logs.push(l),
  });
  before(async () => {
    schema = await freshSchema('bus_link');
    await migrate(testPgUrl(), { schema: schema.schema, storageMode: 'unlogged', convertStorageMode: false });
    A = await start();
    B = await start();
  });
  after(async () => {
    await A?.close();
    await B?.close();
    await schema?.drop();
  });

  test('PUBLISH on one instance reaches SUBSCRIBE and PSUBSCRIBE on the other, once, in order', async () => {
    const sub = recorder();
    const psub = recorder();
    const local = recorder();
    await B.buses[1]!.subscribe('c', b('orders'), sub);
    await B.buses[0]!.subscribe('p', b('ord*'), psub);
    await A.buses[1]!.subscribe('c', b('orders'), local);
    // the count is this instance's receivers, as a Redis Cluster node counts its own
    for (let i = 0; i < 3000; i++) assert.equal(A.buses[0]!.publish(b('orders'), b(`m${i}`)), 1);
    await sub.until(3000);
    await psub.until(3000);
    await local.until(3000);
    const expected = Array.from({ length: 3000 }, (_, i) => `m${i}`);
    assert.deepEqual(sub.got.map((g) => g[2]), expected);
    assert.deepEqual(psub.got.map((g) => g[2]), expected);
    await turn();
    // A's own subscriber got each message once: directly, not again through Postgres
    assert.deepEqual(local.got.map((g) => g[2]), expected);
    assert.equal(A.link!.stats.lost + B.link!.stats.lost, 0);
  });

  test('identical messages in one transaction are all delivered (sequence numbers)', async () => {
    const sub = recorder();
    await B.buses[0]!.subscribe('c', b('same'), sub);
    const tx = A.link!.stats.transactions;
    // 4 KB each: one per notification, so without a sequence the five payloads would be equal
    const m = Buffer.alloc(4000, 'x');
    for (let i = 0; i < 5; i++) A.buses[1]!.publish(b('same'), m);
    await sub.until(5);
    assert.equal(sub.got.length, 5);
    assert.ok(A.link!.stats.transactions - tx <= 2, 'one publishing turn is one transaction, give or take');
  });

  test('a 1 MB message goes through bus_messages, in order among small ones', async () => {
    const got: Buffer[] = [];
    await B.buses[1]!.subscribe('c', b('big'), { deliver: (_k, _c, m) => { got.push(Buffer.from(m)); return true; } });
    const big = Buffer.alloc(1 << 20);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 255;
    const w = A.buses[0]!;
    w.publish(b('big'), b('before'));
    w.publish(b('big'), big);
    w.publish(b('big'), b('after'));
    await until(() => got.length === 3, 'three messages');
    assert.equal(got[0]!.toString(), 'before');
    assert.ok(got[1]!.equals(big));
    assert.equal(got[2]!.toString(), 'after');
    assert.ok(A.link!.stats.largeOut >= 1 && B.link!.stats.largeIn >= 1);
  });

  test('nothing is notified when no other instance listens (publish and wake)', async () => {
    // counted where it would arrive, behind a fence B listens to: A's own notification count also
    // moves when the commits of its acknowledgements of the earlier tests' subscriptions are seen
    // (its commit callbacks may run after B already resolved on the ack: 21 where 18, once)
    const fence = recorder();
    await B.buses[0]!.subscribe('c', b('fence'), fence);
    const items = B.link!.stats.itemsIn;
    const forwarded = A.buses[0]!.stats.sentRemote + A.buses[1]!.stats.sentRemote;
    for (let i = 0; i < 100; i++) {
      A.buses[0]!.publish(b('nobody'), b('x'));
      A.buses[1]!.wake(0, b('nobody-waits'));
    }
    assert.equal(A.buses[0]!.stats.sentRemote + A.buses[1]!.stats.sentRemote, forwarded); // not even to the primary
    A.buses[1]!.publish(b('fence'), b('f'));
    await fence.until(1);
    assert.equal(B.link!.stats.itemsIn - items, 1, 'only the fence crossed');
  });

  test('a push on one instance wakes a client blocked on the other', async () => {
    let woken = 0;
    const waiter = () => { woken++; };
    await B.buses[1]!.waitKey(3, b('jobs'), waiter);
    A.buses[0]!.wake(3, b('jobs'));
    A.buses[0]!.wake(4, b('jobs')); // another db: not this waiter
    await until(() => woken === 1, 'the wake-up');
    B.buses[1]!.unwaitKey(3, b('jobs'), waiter);
    await turn();
    assert.equal(woken, 1);
  });

  test('wakeServed: a push waits until the clients it woke on the other instance tried again; several pushes share one wake-up', async () => {
    // B's waiters answer their try 100 ms after the wake-up (the pop's round trip, lengthened)
    const tried: number[] = [];
    const waiter = (n: number) => () => new Promise<void>((r) => setTimeout(() => { tried.push(n); r(); }, 100));
    const [w1, w2] = [waiter(1), waiter(2)];
    await B.buses[1]!.waitKey(5, b('served'), w1);
    await B.buses[0]!.waitKey(5, b('served'), w2);
    const [waits, timeouts, lines] = [A.link!.stats.servedWaits, A.link!.stats.servedTimeouts, B.link!.stats.dataIn];
    const pushes = [A.buses[0]!.wakeServed(5, b('served')), A.buses[1]!.wakeServed(5, b('served'))];
    assert.ok(pushes.every((p) => p !== undefined), 'B holds the key: the pushes wait');
    await Promise.all(pushes);
    assert.deepEqual([...tried].sort(), [1, 2], 'settled after both of B\'s workers\' waiters tried');
    assert.equal(A.link!.stats.servedWaits - waits, 2);
    assert.equal(A.link!.stats.servedTimeouts - timeouts, 0);
    // (counted where it arrives: A's own count may still take its acknowledgement of B's interest)
    assert.equal(B.link!.stats.dataIn - lines, 1, 'the two workers\' wake-ups went as one line with two tokens');
    B.buses[1]!.unwaitKey(5, b('served'), w1);
    B.buses[0]!.unwaitKey(5, b('served'), w2);
    // the interest lingers (250 ms): a push now is answered by B's hub at once, nobody to try
    const t0 = Date.now();
    await A.buses[0]!.wakeServed(5, b('served'));
    assert.ok(Date.now() - t0 < 900);
    assert.equal(A.link!.stats.servedTimeouts - timeouts, 0);
  });

  test('wakeServed: 1,500 pushes of one key in one turn (one wake-up, its tokens past a payload) are all answered', async () => {
    let woken = 0;
    const waiter = () => { woken++; return Promise.resolve(); };
    await B.buses[1]!.waitKey(6, b('many'), waiter);
    const timeouts = A.link!.stats.servedTimeouts;
    const pushes = Array.from({ length: 1500 }, () => A.buses[0]!.wakeServed(6, b('many')));
    await Promise.all(pushes);
    assert.equal(A.link!.stats.servedTimeouts - timeouts, 0);
    assert.ok(woken >= 1 && woken < 10, `${woken} wake-ups`);
    B.buses[1]!.unwaitKey(6, b('many'), waiter);
  });

  test('wakeServed: a waiter on the other instance that never answers holds the push servedTimeoutMs (1 s), counted', async () => {
    const stuck = () => new Promise<void>(() => undefined);
    await B.buses[0]!.waitKey(5, b('stuck'), stuck);
    const timeouts = A.link!.stats.servedTimeouts;
    const t0 = Date.now();
    await A.buses[1]!.wakeServed(5, b('stuck'));
    const took = Date.now() - t0;
    assert.ok(took >= 900 && took < 3000, `${took} ms (servedTimeoutMs: 1000)`);
    assert.equal(A.link!.stats.servedTimeouts - timeouts, 1);
    B.buses[0]!.unwaitKey(5, b('stuck'), stuck);
  });

  test('repeated wake-ups of one key in one turn go out as one notification', async () => {
    let woken = 0;
    const waiter = () => { woken++; };
    await B.buses[0]!.waitKey(0, b('hot'), waiter);
    // counted where they arrive: A's own count also holds its acknowledgement of B's interest in
    // 'hot', added when A's commit callback runs, which may come after B already read the ack
    // and resolved waitKey (both connections in this process: 2 where 1 once, merged run)
    const [lines, items] = [B.link!.stats.dataIn, B.link!.stats.itemsIn];
    for (let i = 0; i < 50; i++) A.buses[0]!.wake(0, b('hot'));
    await until(() => woken > 0, 'the wake-up');
    await turn();
    assert.equal(B.link!.stats.itemsIn - items, 1, 'the 50 wake-ups went as one item');
    assert.equal(B.link!.stats.dataIn - lines, 1, 'in one notification');
    assert.equal(woken, 1);
    B.buses[0]!.unwaitKey(0, b('hot'), waiter);
  });

  test('a second waiter of a key whose registration is in flight resolves only once the other instance knows', async () => {
    // B's worker 0 registers the key (a transaction, then A's acknowledgement); worker 1's waitKey
    // right after used to resolve once B's own workers knew, before A did: its blocked call then
    // looked (nothing), a push on A committed before A knew went nowhere, and it never woke
    const [w0, w1] = [() => undefined, () => undefined];
    const known: boolean[] = [];
    const first = B.buses[0]!.waitKey(8, b('second'), w0).then(() => known.push(A.buses[0]!.waited(8, b('second'))));
    const second = B.buses[1]!.waitKey(8, b('second'), w1).then(() => known.push(A.buses[0]!.waited(8, b('second'))));
    await Promise.all([first, second]);
    assert.deepEqual(known, [true, true], 'A knew when each waitKey resolved');
    B.buses[0]!.unwaitKey(8, b('second'), w0);
    B.buses[1]!.unwaitKey(8, b('second'), w1);
  });

  test('a blocked key stays registered 250 ms after its last waiter, then goes from the registry and the other instance\'s view', async () => {
    const waiter = () => undefined;
    const rows = () => withPg(async (c) => Number((await c.query(`SELECT count(*) AS n FROM "${schema.schema}".bus_interest
      WHERE key = 'k7:gone'::bytea`)).rows[0].n));
    await B.buses[0]!.waitKey(7, b('gone'), waiter);
    assert.equal(await rows(), 1);
    assert.ok(A.buses[1]!.waited(7, b('gone')), 'A sees B waiting');
    B.buses[0]!.unwaitKey(7, b('gone'), waiter);
    const t0 = Date.now();
    // re-blocking within the linger changes nothing (a BRPOP loop)
    await turn();
    await B.buses[1]!.waitKey(7, b('gone'), waiter);
    B.buses[1]!.unwaitKey(7, b('gone'), waiter);
    await until(() => !A.buses[1]!.waited(7, b('gone')), 'A\'s view without the key', 5000);
    const took = Date.now() - t0;
    // on main it stayed 30 s (keyLingerMs); the bound: 250 ms, then one notifying transaction
    assert.ok(took >= 240 && took < 3000, `gone after ${took} ms`);
    assert.equal(await rows(), 0);
    assert.ok(!A.buses[0]!.waited(7, b('gone')));
  });

  test('the interest registry: rows per instance, removed with the last subscriber', async () => {
    const s = recorder();
    await B.buses[0]!.subscribe('c', b('reg'), s);
    const rows = () => withPg(async (c) => (await c.query(`SELECT instance, convert_from(key, 'latin1') AS k FROM "${schema.schema}".bus_interest
      WHERE key = 'creg'::bytea`)).rows);
    assert.deepEqual(await rows(), [{ instance: B.link!.instance, k: 'creg' }]);
    B.buses[0]!.unsubscribe('c', b('reg'), s);
    await until(async () => (await rows()).length === 0, 'the row removed');
    assert.ok(A.link!.stats.queueUsage >= 0 && A.link!.stats.queueUsage < 1);
  });

  test('a listener that stops reading holds the notification queue: the usage gauge rises', async () => {
    const s = recorder();
    await B.buses[0]!.subscribe('c', b('queue'), s);
    // a session idle in a transaction reads no notifications, so the queue keeps them for it
    await withPg(async (stuck) => {
      await stuck.query(`LISTEN "${A.link!.channel}"`);
      await stuck.query('BEGIN');
      await stuck.query('SELECT 1');
      const m = Buffer.alloc(4000, 'q'); // one page of the queue every two notifications
      for (let i = 0; i < 400; i++) A.buses[0]!.publish(b('queue'), m);
      await s.until(400);
      await A.link!.checkNow();
      assert.ok(A.link!.stats.queueUsage > 0, `queue usage ${A.link!.stats.queueUsage}`);
      await stuck.query('COMMIT');
    });
  });

  test('reconnect: after its connection is killed an instance registers again and receives; its blocked clients re-check', async () => {
    const s = recorder();
    await B.buses[0]!.subscribe('c', b('again'), s);
    let woken = 0;
    const waiter = () => { woken++; };
    await B.buses[1]!.waitKey(0, b('during'), waiter);
    const before = B.link!.stats.reconnects;
    await withPg((c) => c.query(`SELECT pg_terminate_backend(pid) FROM "${schema.schema}".bus_instances WHERE instance = $1`, [B.link!.instance]));
    await until(() => B.link!.stats.reconnects > before && B.link!.stats.connected, 'the reconnect');
    await until(() => woken === 1, 'the blocked client woken after the reconnect');
    B.buses[1]!.unwaitKey(0, b('during'), waiter);
    // A learns of B's new registration (H) and sends again
    await until(() => { A.buses[1]!.publish(b('again'), b('x')); return s.got.length > 0; }, 'a message after the reconnect');
    assert.ok(logs.some((l) => /connection to Postgres lost/.test(l)));
  });

  test('a dead instance (its backend gone) is forgotten by the health check', async () => {
    await withPg(async (c) => {
      await c.query(`INSERT INTO "${schema.schema}".bus_instances VALUES ('ghost', 2147483647, now())`);
      await c.query(`INSERT INTO "${schema.schema}".bus_interest VALUES ('ghost', 'cghost'::bytea)`);
      await c.query(`SELECT pg_notify($1, 'Hghost 1')`, [A.link!.channel]);
    });
    await until(() => A.link!.stats.remoteInstances === 2, 'A sees the ghost');
    await until(() => { A.buses[0]!.publish(b('ghost'), b('x')); return A.buses[0]!.stats.sentRemote > 0; }, 'A sending to the ghost');
    await A.link!.checkNow();
    await until(() => A.link!.stats.remoteInstances === 1 && B.link!.stats.remoteInstances === 1, 'the ghost forgotten by both');
    assert.equal((await withPg((c) => c.query(`SELECT 1 FROM "${schema.schema}".bus_interest WHERE instance = 'ghost'`))).rowCount, 0);
  });

  test('a blocked key acknowledged after the timeout wakes its waiters: a push over there meanwhile was not sent', async () => {
    // A live instance that answers late: a ghost row whose backend is this test's connection (so
    // the health check keeps it), which LISTENs and acknowledges C's interest only after C's
    // 50 ms gave up. waitKey resolves before the ghost knows, so a push it committed in between
    // was not forwarded; its late answer must make C's blocked clients look again. (An earlier
    // form gave A and B 1 ms: on a loaded machine their acks could arrive in the same read as
    // C's commit, before the timer, and nothing was late.)
    await withPg(async (ghost) => {
      await ghost.query(`INSERT INTO "${schema.schema}".bus_instances (instance, pid, backend_start)
        SELECT 'slow', pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()`);
      const C = await inThreadBus(2, {
        link: { url: testPgUrl(), startupOptions: startupOptions('unlogged', schema.schema), schema: schema.schema, healthMs: 60_000, ackTimeoutMs: 50 },
        log: (l) => logs.push(l),
      });
      try {
        const interests: string[] = [];
        ghost.on('notification', (n) => { if (n.payload?.startsWith(`I${C.link!.instance} `)) interests.push(n.payload); });
        await ghost.query(`LISTEN "${C.link!.channel}"`);
        let woken = 0;
        const waiter = () => { woken++; };
        await C.buses[1]!.waitKey(2, b('late'), waiter);
        assert.equal(woken, 0);
        await until(() => interests.length > 0, "the ghost seeing C's interest");
        assert.ok(logs.some((l) => /slow.*did not acknowledge/.test(l)), 'C gave up on the ghost');
        const [, seq] = interests[0]!.split(' ');
        await ghost.query('SELECT pg_notify($1, $2)', [C.link!.channel, `Aslow 1 ${C.link!.instance} ${seq}`]);
        await until(() => woken > 0, 'the wake-up after the late acknowledgement');
        assert.ok(C.link!.stats.lateAcks >= 1);
        C.buses[1]!.unwaitKey(2, b('late'), waiter);
      } finally {
        await C.close();
        await ghost.query(`DELETE FROM "${schema.schema}".bus_instances WHERE instance = 'slow'`);
      }
    });
  });
});
