/**
 * Differential: the generic key commands and the remaining string commands against
 * redis-server 7, byte for byte, through the shared oracle and Keyspace (generators/family.ts).
 * Random sequences from a fixed seed (DIFF_SEED, DIFF_N as for strings.test.ts) over keys of
 * every type (strings, hashes, sets: `kTypeMakers`, one line per type to add), binary keys and
 * values, several databases.
 *
 * Time: TTLs are long (≥ 1000 s) or already past, distinct values differ by ≥ 1000 s and GT/LT
 * come with absolute times only, so no comparison depends on when a command ran. TTL/PTTL/EXPIRETIME/PEXPIRETIME of a
 * relative TTL depend on each server's clock (the two runs are seconds apart): those replies may
 * differ within a tolerance (sameWithin); -1 and -2 must match exactly. KEYS/SCAN/RANDOMKEY
 * order is Redis's hash order, so they are compared as sets in their own tests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { edges, intArg, Keyspace, sequence, value, type Family } from './generators/family';
import { Oracle, report, type Cmd, type CompareOptions, type CompareResult } from './oracle';
import { Rng, seedFromEnv } from './prng';
import { FrameConn } from './resp-frames';
import { encode } from '../e2e/resp-client';

const kSeed = seedFromEnv(20240612);
const kScale = Number(process.env.DIFF_N ?? 1);
const latin1 = (s: string) => Buffer.from(s, 'latin1');

// ── generators ────────────────────────────────────────────────────────────────────────────────
const kRelS = ['1000', '5000', '100000'];
const kRelMs = ['2000000', '7000000', '200000000'];
const kAbsS = ['4102444800', '4000000000', '1', '-5'];
const kAbsMs = ['4102444800123', '3000000000000', '1', '-5'];
const kExpireFlags = [[], [], [], ['NX'], ['XX'], ['GT'], ['LT'], ['XX', 'GT'], ['nx', 'xx'], ['GT', 'LT'], ['BOGUS']];
const kBadTime = ['abc', '', '1.5', '9223372036854775807', '-9223372036854775808'];
const kFloats = ['0.1', '0.2', '-0.3', '1.5e3', '1e-18', '5e-18', '0x1p-3', '.5', '5.', '+2', '-0', '1e300', '3.0000000000000004',
  '123456789.123456789', 'inf', 'nan', 'abc', ' 1', '1e5000', '', '10', '-7.25'];

/** one command creating a key of each type: a new type is one line here */
const kTypeMakers: ((k: Buffer, rng: Rng) => Cmd)[] = [
  (k, rng) => ['SET', k, value(rng)],
  (k, rng) => ['HSET', k, rng.pick(['f', 'g', '\x00']), value(rng)],
  (k, rng) => ['SADD', k, rng.pick(['m', 'n', '1', '\xff'])],
];

// GT/LT only with absolute times: two relative TTLs of the same value differ by the time between
// the commands (0 ms in one run, 1 ms in the other)
const expireCmd = (rng: Rng, k: Buffer): Cmd => {
  const [name, pool] = rng.pick([['EXPIRE', kRelS], ['PEXPIRE', kRelMs], ['EXPIREAT', kAbsS], ['PEXPIREAT', kAbsMs]] as const);
  const flags = rng.pick(kExpireFlags).filter((f) => name.endsWith('AT') || !/^(gt|lt)$/i.test(f));
  return [rng.chance(0.1) ? name.toLowerCase() : name, k, rng.chance(0.9) ? rng.pick(pool) : rng.pick(kBadTime), ...flags];
};

const keyCommands: Family = {
  name: 'keyspace',
  commands: [
    { name: 'make', weight: 6, make: ({ rng, ks }) => rng.pick(kTypeMakers)(ks.key(rng), rng) },
    { name: 'type', weight: 3, make: ({ rng, ks }) => ['TYPE', ks.key(rng)] },
    { name: 'expire', weight: 6, make: ({ rng, ks }) => expireCmd(rng, ks.key(rng)) },
    { name: 'ttl', weight: 4, make: ({ rng, ks }) => [rng.pick(['TTL', 'PTTL', 'EXPIRETIME', 'PEXPIRETIME']), ks.key(rng)] },
    { name: 'persist', weight: 2, make: ({ rng, ks }) => ['PERSIST', ks.key(rng)] },
    { name: 'rename', weight: 3, make: ({ rng, ks }) => [rng.pick(['RENAME', 'RENAMENX']), ks.key(rng), ks.key(rng)] },
    { name: 'copy', weight: 3, make: ({ rng, ks }) => ['COPY', ks.key(rng), ks.key(rng),
      ...(rng.chance(0.4) ? ['DB', rng.chance(0.9) ? String(rng.pick(ks.dbs)) : rng.pick(['16', 'x', '-1'])] : []),
      ...(rng.chance(0.4) ? ['REPLACE'] : []), ...(rng.chance(0.03) ? ['BOGUS'] : [])] },
    { name: 'move', weight: 2, make: ({ rng, ks }) => ['MOVE', ks.key(rng), rng.chance(0.9) ? String(rng.pick(ks.dbs)) : rng.pick(['16', 'x'])] },
    { name: 'unlink', weight: 1, make: ({ rng, ks }) => ['UNLINK', ...ks.someKeys(rng, 3)] },
    { name: 'touch', weight: 1, make: ({ rng, ks }) => ['TOUCH', ...ks.someKeys(rng, 4)] },
    { name: 'memory', weight: 0.5, make: ({ rng, ks }) => ['MEMORY', 'USAGE', ks.key(rng)] },
    { name: 'select', weight: 2, make: ({ rng, ks }) => ['SELECT', String(rng.pick(ks.dbs))] },
    { name: 'swapdb', weight: 0.5, wholeKeyspace: true, make: ({ rng, ks }) => ['SWAPDB', String(rng.pick(ks.dbs)), String(rng.pick(ks.dbs))] },
  ],
  edges: (ks) => {
    const [a, b, c] = ks.keys;
    const out: Cmd[] = [['SET', a, '123'], ['SET', b, 'x'.repeat(44)], ['SET', c, 'x'.repeat(45)], ['HSET', ks.named('h'), 'f', 'v']];
    for (const k of [a, b, c, ks.named('h'), ks.named('none')]) {
      // (IDLETIME is left out: Redis counts seconds since the last access, PostRESP answers 0)
      out.push(['OBJECT', 'ENCODING', k], ['OBJECT', 'REFCOUNT', k], ['TYPE', k]);
    }
    out.push(['KEYS', a], ['OBJECT', 'FREQ', a], ['OBJECT', 'nope', a], ['SWAPDB', '0', 'x'], ['SWAPDB', '99999999999', '0'],
      ['MOVE', a, '0'], ['COPY', a, a], ['RENAME', ks.named('none'), a], ['EXPIRE', a, '10', 'NX', 'GT'], ['SCAN', 'x'],
      ['TYPE'], ['TTL'], ['RENAME', a], ['COPY', a], ['MOVE', a], ['SWAPDB', '0'], ['OBJECT'], ['EXPIRE', a]);
    return out;
  },
};

const smallValue = (rng: Rng): Buffer => (rng.chance(0.7) ? rng.pick(['', 'abc', 'ohmytext', 'mynewtext', '12', 'x\x00y'].map(latin1)) : rng.bytes(rng.between(1, 40)));
const offset = (rng: Rng): string => (rng.chance(0.85) ? String(rng.between(0, 60)) : rng.pick(['-1', 'x', '536870912', '536870911', '9223372036854775807']));

const stringCommands: Family = {
  name: 'strings-more',
  commands: [
    { name: 'setnx', weight: 3, make: ({ rng, ks }) => ['SETNX', ks.key(rng), value(rng)] },
    { name: 'setex', weight: 2, make: ({ rng, ks }) => rng.chance(0.5) ? ['SETEX', ks.key(rng), rng.pick([...kRelS, ...kBadTime, '0']), value(rng)]
      : ['PSETEX', ks.key(rng), rng.pick([...kRelMs, ...kBadTime, '0']), value(rng)] },
    { name: 'getset', weight: 2, make: ({ rng, ks }) => ['GETSET', ks.key(rng), value(rng)] },
    { name: 'getdel', weight: 2, make: ({ rng, ks }) => ['GETDEL', ks.key(rng)] },
    { name: 'getex', weight: 3, make: ({ rng, ks }) => ['GETEX', ks.key(rng), ...rng.pick([[], ['PERSIST'], ['EX', rng.pick(kRelS)],
      ['PX', rng.pick(kRelMs)], ['EXAT', rng.pick(kAbsS)], ['PXAT', rng.pick(kAbsMs)], ['EX', rng.pick(kBadTime)], ['EX', '10', 'PERSIST'],
      ['KEEPTTL'], ['EX']])] },
    { name: 'msetnx', weight: 2, make: ({ rng, ks }) => ['MSETNX', ...ks.someKeys(rng, 3).flatMap((k) => [k, value(rng)])] },
    { name: 'append', weight: 3, make: ({ rng, ks }) => ['APPEND', ks.key(rng), smallValue(rng)] },
    { name: 'strlen', weight: 2, make: ({ rng, ks }) => ['STRLEN', ks.key(rng)] },
    { name: 'getrange', weight: 3, make: ({ rng, ks }) => [rng.pick(['GETRANGE', 'SUBSTR']), ks.key(rng), intArg(rng), intArg(rng)] },
    { name: 'setrange', weight: 3, make: ({ rng, ks }) => ['SETRANGE', ks.key(rng), offset(rng), smallValue(rng)] },
    { name: 'incrbyfloat', weight: 4, make: ({ rng, ks }) => ['INCRBYFLOAT', ks.key(rng), rng.pick(kFloats)] },
    { name: 'setfloat', weight: 1, make: ({ rng, ks }) => ['SET', ks.key(rng), rng.pick(kFloats)] },
    { name: 'lcs', weight: 2, make: ({ rng, ks }) => ['LCS', ks.key(rng), ks.key(rng), ...rng.pick([[], ['LEN'], ['IDX'], ['IDX', 'WITHMATCHLEN'],
      ['IDX', 'MINMATCHLEN', rng.pick(['0', '2', '-1', 'x'])], ['IDX', 'LEN'], ['BOGUS']])] },
    { name: 'get', weight: 3, make: ({ rng, ks }) => ['GET', ks.key(rng)] },
  ],
  edges: (ks) => {
    const k = ks.named('se');
    const out: Cmd[] = [['SET', k, '10'], ['INCRBYFLOAT', k, '0.1'], ['INCRBYFLOAT', k, '0.2'], ['GETRANGE', k, '-3', '-1'],
      ['SETRANGE', k, '0', ''], ['APPEND', k, '\x00\xff'], ['STRLEN', k], ['GETDEL', k], ['GETEX', k], ['MSETNX', k, '1', k, '2'],
      ['GET', k], ['LCS', k, ks.named('none')], ['SETEX', k, '10'], ['GETEX'], ['LCS', k], ['MSETNX', k]];
    for (const f of kFloats) out.push(['SET', k, '1.5'], ['INCRBYFLOAT', k, f], ['SET', k, f], ['INCRBYFLOAT', k, '1']);
    return out;
  },
};

const kFamilies: readonly Family[] = [keyCommands, stringCommands];

// ── comparison with a tolerance for clock-dependent TTL replies ───────────────────────────────
const kTolerance: Record<string, number> = { TTL: 15, PTTL: 15000, EXPIRETIME: 120, PEXPIRETIME: 120000 };

function sameWithin(m: CompareResult['mismatches'][number]): boolean {
  const tol = kTolerance[m.command.split(' ')[0].toUpperCase()];
  const a = /^:(-?\d+)\\r\\n$/.exec(m.redis);
  const b = /^:(-?\d+)\\r\\n$/.exec(m.postresp);
  if (tol === undefined || !a || !b) return false;
  const [x, y] = [Number(a[1]), Number(b[1])];
  return x >= 0 && y >= 0 && Math.abs(x - y) <= tol;
}

let oracle: Oracle;
before(async () => { oracle = await Oracle.start(['--workers', '2', '--storage-mode', 'unlogged']); });
after(async () => { await oracle?.stop(); });

async function check(t: TestContext, label: string, sessions: Cmd[][], opts: CompareOptions = {}): Promise<void> {
  await oracle.reset();
  const r = await oracle.compare(sessions, opts);
  const real = { ...r, mismatches: r.mismatches.filter((m) => !sameWithin(m)) };
  t.diagnostic(`${label}: ${r.commands} commands in ${sessions.length} session(s), ${real.mismatches.length} differ, ` +
    `${r.mismatches.length - real.mismatches.length} TTL replies within tolerance (seed ${kSeed})`);
  assert.equal(real.mismatches.length, 0, report(label, kSeed, real));
}

function exclusiveSession(label: string, n: number): Cmd[] {
  const ks = new Keyspace('');
  const rng = new Rng(kSeed).fork(label);
  return [...sequence(kFamilies, { rng, ks }, Math.round(n * kScale), true), ['SELECT', '0'], ...edges(kFamilies, ks, true), ...ks.dump(true)];
}

function concurrentSessions(label: string, clients: number, n: number): Cmd[][] {
  return Array.from({ length: clients }, (_, i) => {
    const ks = new Keyspace(`c${i}:`);
    const rng = new Rng(kSeed).fork(`${label}/${i}`);
    return [...sequence(kFamilies, { rng, ks }, Math.round(n * kScale), false), ['SELECT', '0'], ...(i < 2 ? edges(kFamilies, ks, false) : []), ...ks.dump(false)];
  });
}

/** A whole SCAN iteration (or KEYS) on one server, as a sorted list. */
async function scanAll(port: number, db: string, args: string[]): Promise<string[]> {
  const conn = await FrameConn.connect(port);
  try {
    conn.write(encode('SELECT', db));
    await conn.read(1, 5000);
    const keys: string[] = [];
    let cursor = '0';
    do {
      conn.write(encode('SCAN', cursor, ...args));
      const frame = (await conn.read(1, 5000)).frames[0].toString('latin1');
      const parts = frame.split('\r\n');
      cursor = parts[2];
      for (let i = 4; i + 1 < parts.length; i += 2) keys.push(parts[i + 1]);
    } while (cursor !== '0');
    return keys.sort();
  } finally {
    conn.close();
  }
}

describe('keys and more strings vs redis-server (byte for byte)', () => {
  it('(a) one client, one command at a time', async (t) => {
    await check(t, 'serial', [exclusiveSession('serial', 700)], { window: 1 });
  });

  it('(b) one client, the whole sequence pipelined in one write', async (t) => {
    await check(t, 'pipeline', [exclusiveSession('pipeline', 2000)], { window: Infinity });
  });

  it('(c) 6 clients at once, each on its own keys, pipelined in windows of 40', async (t) => {
    await check(t, 'concurrent', concurrentSessions('concurrent', 6, 300), { window: 40 });
  });

  it('RESP3: same commands, pipelined', async (t) => {
    await check(t, 'resp3', [[['HELLO', '3'], ...exclusiveSession('resp3', 500)]], { window: 100 });
  });

  it('SCAN (every option) and KEYS return the same key sets, binary keys and several dbs included', async () => {
    await oracle.reset();
    const rng = new Rng(kSeed).fork('scan');
    const setup: Cmd[] = [];
    for (const db of ['0', '1']) {
      setup.push(['SELECT', db]);
      for (let i = 0; i < 150; i++) setup.push(rng.pick(kTypeMakers)(latin1(rng.pick(['user:', 'post:', 'u\x00', '\xff']) + i), rng));
    }
    await oracle.compare([setup], { window: Infinity });
    for (const db of ['0', '1']) {
      for (const args of [[], ['COUNT', '7'], ['MATCH', 'user:1*'], ['MATCH', '*1?', 'COUNT', '3'], ['TYPE', 'hash'], ['MATCH', 'u\x00*', 'TYPE', 'set'], ['MATCH', '[pu]*5']]) {
        const [r, p] = await Promise.all([scanAll(oracle.redis.port, db, args), scanAll(oracle.postresp.port, db, args)]);
        assert.deepEqual(p, r, `SCAN ${args.join(' ')} in db ${db}`);
      }
    }
  });

  it('short TTLs expire in both (EXPIRE, PEXPIRE, SETEX, PSETEX, GETEX, RENAME/COPY keep them; 1.5 s margin)', async () => {
    await oracle.reset();
    const setup: Cmd[] = [
      ['MSET', 'e1', 'v', 'e2', 'v', 'e3', 'v', 'e4', 'v', 'e5', 'v', 'e6', 'v'], ['PEXPIRE', 'e1', '400'], ['EXPIRE', 'e2', '1'],
      ['SETEX', 'e3', '1', 'v'], ['PSETEX', 'e4', '400', 'v'], ['GETEX', 'e5', 'PX', '400'], ['PEXPIRE', 'e6', '400'], ['RENAME', 'e6', 'e7'],
      ['COPY', 'e7', 'e8'], ['HSET', 'h', 'f', 'v'], ['PEXPIRE', 'h', '400'], ['SET', 'e9', 'v', 'PX', '400'], ['PERSIST', 'e9'],
      ['SET', 'e10', '1.5', 'PX', '400'], ['INCRBYFLOAT', 'e10', '1'], ['APPEND', 'e10', '0'],
    ];
    const first = await oracle.compare([setup]);
    assert.equal(first.mismatches.length, 0, report('ttl setup', kSeed, first));
    await new Promise((r) => setTimeout(r, 2500));
    const keys = ['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8', 'e9', 'e10', 'h'];
    const later: Cmd[] = [['EXISTS', ...keys], ['MGET', ...keys], ...keys.map((k): Cmd => ['TTL', k]), ['HGETALL', 'h'], ['DBSIZE']];
    const second = await oracle.compare([later]);
    assert.equal(second.mismatches.length, 0, report('ttl after sleep', kSeed, second));
  });
});
