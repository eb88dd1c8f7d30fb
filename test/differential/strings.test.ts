/**
 * Differential: string, key and connection commands against redis-server 7, byte for byte, in
 * three connection patterns — one command at a time, one whole pipeline in a single write, and
 * 8 clients at once (each on its own keys, pipelined). Random sequences come from a fixed seed
 * (DIFF_SEED overrides; DIFF_N scales their length); every failure prints the seed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { connection } from './generators/connection';
import { edges, Keyspace, sequence, type Family } from './generators/family';
import { keys } from './generators/keys';
import { strings } from './generators/strings';
import { RawClient } from '../e2e/resp-client';
import { Oracle, report, type Cmd, type CompareOptions } from './oracle';
import { Rng, seedFromEnv } from './prng';

const kSeed = seedFromEnv(20240611);
const kScale = Number(process.env.DIFF_N ?? 1);
const kFamilies: readonly Family[] = [strings, keys, connection];
const kClients = 8;

let oracle: Oracle;
before(async () => { oracle = await Oracle.start(['--workers', '2']); });
after(async () => { await oracle?.stop(); });

async function check(t: TestContext, label: string, sessions: Cmd[][], opts: CompareOptions = {}): Promise<void> {
  await oracle.reset();
  const r = await oracle.compare(sessions, opts);
  t.diagnostic(`${label}: ${r.commands} commands in ${sessions.length} session(s), ${r.mismatches.length} differ (seed ${kSeed})`);
  assert.equal(r.mismatches.length, 0, report(label, kSeed, r));
}

/** One session over the unprefixed keyspace (the empty key included): random, then edges, then a dump. */
function exclusiveSession(label: string, n: number): Cmd[] {
  const ks = new Keyspace('');
  const rng = new Rng(kSeed).fork(label);
  return [...sequence(kFamilies, { rng, ks }, Math.round(n * kScale), true), ...edges(kFamilies, ks, true), ...ks.dump(true)];
}

/**
 * kClients sessions, each on its own key prefix so every reply is deterministic; the first two
 * also run the edge cases (all eight would add ~8000 commands and little coverage).
 */
function concurrentSessions(label: string, n: number): Cmd[][] {
  return Array.from({ length: kClients }, (_, i) => {
    const ks = new Keyspace(`c${i}:`);
    const rng = new Rng(kSeed).fork(`${label}/${i}`);
    const edgeCases = i < 2 ? edges(kFamilies, ks, false) : [];
    return [...sequence(kFamilies, { rng, ks }, Math.round(n * kScale), false), ...edgeCases, ...ks.dump(false)];
  });
}

describe('the oracle', () => {
  it('reports a reply that differs, with the commands before it', async () => {
    await oracle.reset();
    assert.equal((await oracle.compare([[['PING'], ['GET', 'only-in-redis']]])).mismatches.length, 0);
    // a write only redis-server sees, through a connection of our own
    const c = await RawClient.connect(oracle.redis.port);
    assert.equal(await c.call('SET', 'only-in-redis', 'x'), 'OK');
    c.close();
    const r = await oracle.compare([[['PING'], ['GET', 'only-in-redis'], ['INFO', 'server']]]);
    assert.equal(r.mismatches.length, 1, report('self-check', kSeed, r)); // INFO: compared by type only
    assert.deepEqual({ ...r.mismatches[0], before: r.mismatches[0].before.length },
      { session: 0, index: 1, command: 'GET only-in-redis', redis: '$1\\r\\nx\\r\\n', postresp: '$-1\\r\\n', before: 1 });
  });
});

// Minimal repros of what the random runs found, one per cause, so a failure names its cause.
describe('found by the random runs (minimal repros)', () => {
  it('SET checks every option for syntax before it checks the expire value, and only the last one', async (t) => {
    await check(t, 'set option order', [[
      ['SET', 'k', 'v', 'EX', 'abc', 'FOO'], // redis: syntax error (FOO), not "not an integer"
      ['SET', 'k', 'v', 'EX', '0', 'NX', 'XX'], // redis: syntax error, not "invalid expire time"
      ['SET', 'k', 'v', 'PX', 'x', 'PX', '100000'], // redis: OK (the last PX wins; the first is never parsed)
      ['SET', 'k', 'v', 'EXAT', '9223372036854776', 'EXAT', '4102444800'], // redis: OK
      ['GET', 'k'],
    ]]);
  });

  it('SELECT of an index outside the C int range uses Redis\'s range error', async (t) => {
    await check(t, 'select range', [[['SELECT', '2147483648'], ['SELECT', '4294967296'], ['SELECT', '-2147483649'],
      ['SELECT', '2147483647'], ['SELECT', '9223372036854775808']]]);
  });

  it('unknown-command errors print arguments like Redis (NUL ends one, CR and LF become spaces)', async (t) => {
    await check(t, 'unknown command text', [[['NOSUCH', Buffer.from('a\x00b')], ['NOSUCH', Buffer.from('a\r\nb')],
      ['NOSUCH', Buffer.from('a\nb')]]]);
  });
});

describe('strings, keys, connection vs redis-server (byte for byte)', () => {
  it('(a) one client, one command at a time', async (t) => {
    await check(t, 'serial', [exclusiveSession('serial', 600)], { window: 1 });
  });

  it('(b) one client, the whole sequence pipelined in one write', async (t) => {
    await check(t, 'pipeline', [exclusiveSession('pipeline', 2000)], { window: Infinity });
  });

  it('(b) pipelined, delivered in random pieces of 1–64 bytes', async (t) => {
    await check(t, 'pipeline in pieces', [exclusiveSession('pieces', 400)], { window: Infinity, split: { seed: kSeed, maxBytes: 64 } });
  });

  it('(b) pipelined, duplicate keys inside one write', async (t) => {
    const k = 'dup';
    const cmds: Cmd[] = [['SET', k, 'a'], ['SET', k, 'b'], ['GET', k], ['SET', k, 'v', 'NX'], ['SET', k, 'v', 'NX'],
      ['DEL', k], ['SET', k, 'v', 'NX'], ['SET', k, 'w', 'NX'], ['GET', k], ['DEL', k], ['INCR', k], ['INCR', k],
      ['GET', k], ['MSET', k, '1', k, '2'], ['MGET', k, k], ['DEL', k, k], ['EXISTS', k, k], ['SET', k, 'x', 'XX'],
      ['SET', k, 'y'], ['SET', k, 'z', 'XX', 'GET'], ['SET', k, 'q', 'GET'], ['GET', k]];
    const repeated = Array.from({ length: 20 }, () => cmds).flat();
    await check(t, 'pipeline duplicates', [repeated], { window: Infinity });
  });

  it('(b) wide pipeline: 600 keys, batches past batch-max-commands (256) and batch-max-bytes (4 MB)', async (t) => {
    const rng = new Rng(kSeed).fork('wide');
    const key = () => `w${rng.int(600)}`;
    const cmds: Cmd[] = [];
    for (let i = 0; i < 1000; i++) {
      const r = rng.next();
      if (r < 0.4) cmds.push(['SET', key(), rng.chance(0.05) ? rng.bytes(rng.between(16000, 40000)) : String(i)]);
      else if (r < 0.55) cmds.push(['GET', key()]);
      else if (r < 0.65) cmds.push(['INCR', key()]);
      else if (r < 0.72) cmds.push(['SET', key(), String(i), rng.pick(['NX', 'XX', 'GET'])]);
      else if (r < 0.8) cmds.push(['DEL', key(), key()]);
      else if (r < 0.9) cmds.push(['MSET', ...Array.from({ length: rng.between(1, 300) }, () => [key(), String(i)]).flat()]);
      else cmds.push(['MGET', ...Array.from({ length: rng.between(1, 600) }, key)]);
    }
    cmds.push(['MGET', ...Array.from({ length: 600 }, (_, i) => `w${i}`)], ['DBSIZE']);
    await check(t, 'wide pipeline', [cmds], { window: Infinity });
  });

  it(`(c) ${kClients} clients at once, each pipelined in windows of 50`, async (t) => {
    await check(t, 'concurrent', concurrentSessions('concurrent', 250), { window: 50 });
  });

  it(`(c) ${kClients} clients at once, each whole session in one write`, async (t) => {
    await check(t, 'concurrent one write', concurrentSessions('concurrent-one-write', 250), { window: Infinity });
  });

  it('RESP3 (HELLO 3): same sequence, pipelined', async (t) => {
    await check(t, 'resp3', [[['HELLO', '3'], ...exclusiveSession('resp3', 500)]], { window: 100 });
  });

  it('INCR family from 8 clients on the same keys sums exactly', async (t) => {
    const sessions = Array.from({ length: kClients }, (_, i) => {
      const rng = new Rng(kSeed).fork(`sum/${i}`);
      return Array.from({ length: 120 }, (): Cmd => {
        const k = rng.pick(['s1', 's2', 's3']);
        return rng.chance(0.5) ? [rng.pick(['INCR', 'DECR']), k] : [rng.pick(['INCRBY', 'DECRBY']), k, String(rng.between(-50, 50))];
      });
    });
    await oracle.reset();
    const run = await oracle.compare(sessions, { window: 64 }); // per-reply values interleave: not compared
    t.diagnostic(`sum: ${run.commands} increments from ${kClients} clients`);
    const final = await oracle.compare([[['MGET', 's1', 's2', 's3']]]);
    assert.equal(final.mismatches.length, 0, report('sum', kSeed, final));
  });

  it('expiry: relative TTLs expire, KEEPTTL keeps them, plain SET/MSET clear them (1.5 s sleep margin)', async (t) => {
    await oracle.reset();
    // 500 ms TTLs: set, overwritten with or without KEEPTTL, incremented (INCR keeps the TTL)
    const setup: Cmd[] = [
      ['SET', 'e1', 'v', 'PX', '500'], ['SET', 'e2', 'v', 'EX', '1'], ['SET', 'e3', 'v', 'PX', '500'],
      ['SET', 'e3', 'v2', 'KEEPTTL'], ['SET', 'e4', 'v', 'PX', '500'], ['SET', 'e4', 'v2'],
      ['SET', 'e5', 'v', 'PX', '500'], ['SET', 'e5', 'v2', 'XX', 'KEEPTTL', 'GET'], ['SET', 'e6', '5', 'PX', '500'],
      ['INCR', 'e6'], ['SET', 'e7', 'v', 'PX', '500'], ['MSET', 'e7', 'x'], ['SET', 'e8', 'v', 'PX', '500'],
      ['SET', 'e8', 'w', 'PXAT', '4102444800000'], ['SET', 'e9', 'v', 'PX', '500'], ['SET', 'e9', 'w', 'NX'],
      ['SET', 'e10', 'v', 'PX', '500'], ['SET', 'e10', 'w', 'XX', 'EX', '1000'],
    ];
    const first = await oracle.compare([setup]);
    await new Promise((r) => setTimeout(r, 2500)); // longest TTL 1 s, plus a margin for a busy machine
    const keysE = Array.from({ length: 10 }, (_, i) => `e${i + 1}`);
    const later: Cmd[] = [
      ['MGET', ...keysE], ['EXISTS', ...keysE], ...keysE.map((k): Cmd => ['GET', k]),
      ['INCR', 'e1'], ['SET', 'e2', 'n', 'NX'], ['SET', 'e3', 'x', 'XX'], ['SET', 'e6', 'y', 'GET'], ['DEL', 'e9', 'e4'],
      ['MGET', ...keysE],
    ];
    const second = await oracle.compare([later]);
    t.diagnostic(`expiry: ${first.commands + second.commands} commands`);
    assert.equal(first.mismatches.length, 0, report('expiry setup', kSeed, first));
    assert.equal(second.mismatches.length, 0, report('expiry after sleep', kSeed, second));
  });
});
