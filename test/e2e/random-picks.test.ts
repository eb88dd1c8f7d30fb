/**
 * SRANDMEMBER, HRANDFIELD and ZRANDMEMBER pick uniformly over the members, in both forms
 * (negative count: independent picks with repetitions; positive: distinct members) and with both
 * methods of collection/random-sql.ts (whole: small keys; windowed: more than 256 elements per
 * pick), and its fallbacks (windows denser than M = 64, kv.card larger than the rows).
 *
 * Each check is Pearson's chi-square over the pick counts per member against a fixed threshold
 * that a uniform sampler exceeds with probability below 1e-9: scipy.stats.chi2.isf(1e-9, 9) =
 * 60.7 for 10 members (1 000 picks expected each), and for 300 members, where 1 500 picks expect
 * only 5 each, chi2.isf(1e-12, 299) = 504.6, leaving 1000× for the heavier tail of small counts
 * (simulated, 400 000 runs: 2.5× the chi-square tail at 1e-4, none beyond its 1e-6 point). The
 * server's random() cannot be seeded, so that is the chance of a false failure per check (< 1e-8
 * for the file). For distinct picks each term shrinks by (1 - count/n): only more lenient.
 * What it catches: taking "the element after a random h" (before this file), each member's
 * chance is the gap before its h, which varies like an exponential: chi-square ≈ df + picks
 * (10 000 picks over 10 members ≈ 10 000; 1 500 over 300: 1 680–2 050 in 3 simulations), and the
 * Redis suite measured 600–1250 for df 9 where it requires < 40.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { withPg } from '../support/pg';
import { RawClient, encode, type Value } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';

const kChi2Df9 = 60.66;
const kChi2Df299 = 504.58;

const schema = uniqueSchema('rand');
let server: RunningServer;
let c: RawClient;
before(async () => {
  server = await startServer(['--workers', '1', '--storage-mode', 'unlogged'], { schema });
  c = await RawClient.connect(server.port);
});
after(async () => {
  c?.close();
  await server?.stop();
  await withPg(async (pg) => void (await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
});

interface Family {
  name: string;
  /** the command creating key with members m0…m(n-1) (hash values v<i>, zset scores i) */
  fill(key: string, members: string[]): (string | Buffer)[];
  pick: string;
  table: string;
}

const kFamilies: Family[] = [
  { name: 'set', fill: (k, ms) => ['SADD', k, ...ms], pick: 'SRANDMEMBER', table: 'sets' },
  { name: 'hash', fill: (k, ms) => ['HSET', k, ...ms.flatMap((m, i) => [m, `v${i}`])], pick: 'HRANDFIELD', table: 'hashes' },
  { name: 'zset', fill: (k, ms) => ['ZADD', k, ...ms.flatMap((m, i) => [String(i), m])], pick: 'ZRANDMEMBER', table: 'zsets' },
];

const members = (n: number) => Array.from({ length: n }, (_, i) => `m${i}`);

/** `calls` times `pick key count`, pipelined; every reply flattened into one list of members */
async function picks(f: Family, key: string, count: number, calls: number): Promise<string[][]> {
  const out: string[][] = [];
  for (let done = 0; done < calls; done += 500) {
    const n = Math.min(500, calls - done);
    c.socket.write(Buffer.concat(Array.from({ length: n }, () => encode(f.pick, key, String(count)))));
    for (const r of await c.read(n, 60000)) {
      assert.ok(Array.isArray(r), `${f.pick}: ${JSON.stringify(r)}`);
      out.push(r as string[]);
    }
  }
  return out;
}

function chiSquare(all: string[], universe: string[]): number {
  const counts = new Map(universe.map((m) => [m, 0]));
  for (const m of all) {
    const n = counts.get(m);
    assert.ok(n !== undefined, `picked ${m}, not a member`);
    counts.set(m, n + 1);
  }
  const e = all.length / universe.length;
  let x = 0;
  for (const n of counts.values()) x += (n - e) ** 2 / e;
  return x;
}

async function fill(f: Family, key: string, n: number): Promise<string[]> {
  const ms = members(n);
  await c.call('DEL', key);
  await c.call(...f.fill(key, ms));
  return ms;
}

for (const f of kFamilies) {
  describe(`${f.pick} picks uniformly`, () => {
    it('whole method (10 members): -1000 ten times, and 3 distinct ones 1000 times', async () => {
      const ms = await fill(f, `${f.name}:small`, 10);
      const rep = (await picks(f, `${f.name}:small`, -1000, 10)).flat();
      assert.equal(rep.length, 10000);
      const x = chiSquare(rep, ms);
      assert.ok(x < kChi2Df9, `chi-square ${x.toFixed(1)} with repetitions (df 9, limit ${kChi2Df9})`);
      const distinct = await picks(f, `${f.name}:small`, 3, 1000);
      for (const r of distinct) assert.equal(new Set(r).size, 3, `distinct picks repeat: ${r}`);
      const y = chiSquare(distinct.flat(), ms);
      assert.ok(y < kChi2Df9, `chi-square ${y.toFixed(1)} of distinct picks (df 9, limit ${kChi2Df9})`);
    });

    it('windowed method (300 members, one pick per call): with repetitions and distinct', async () => {
      const ms = await fill(f, `${f.name}:big`, 300);
      for (const count of [-1, 1]) {
        const got = await picks(f, `${f.name}:big`, count, 1500);
        for (const r of got) assert.equal(r.length, 1);
        const x = chiSquare(got.flat(), ms);
        assert.ok(x < kChi2Df299, `chi-square ${x.toFixed(1)} for count ${count} (df 299, limit ${kChi2Df299})`);
      }
    });
  });
}

describe('random picks: values, fallbacks', () => {
  it('HRANDFIELD WITHVALUES and ZRANDMEMBER WITHSCORES pair each pick with its own value', async () => {
    for (const [f, opt] of [[kFamilies[1], 'WITHVALUES'], [kFamilies[2], 'WITHSCORES']] as const) {
      for (const n of [10, 300]) {
        await fill(f, 'pairs', n);
        for (const count of ['-40', '1', '-1', '7']) {
          const r = (await c.call(f.pick, 'pairs', count, opt)) as string[];
          for (let i = 0; i < r.length; i += 2) {
            const at = Number(r[i].slice(1));
            assert.equal(r[i + 1], f.name === 'hash' ? `v${at}` : String(at), `${f.pick} pairs ${r[i]} with ${r[i + 1]}`);
          }
        }
      }
    }
  });

  it('every window holding members holds more than 64: picks come from the whole method, uniform', async () => {
    const f = kFamilies[0];
    const ms = await fill(f, 'dense', 300);
    // four clusters of 75 members on one h each: no window can be sampled exactly, so every call
    // must end in the whole method (on meeting a cluster, or after 8 rounds without a pick).
    // Taking the j-th of the first M = 64 of such a window would never pick 11 of each 75.
    await withPg((pg) => pg.query(`UPDATE "${schema}".sets SET h = (substr(convert_from(member, 'UTF8'), 2)::int % 4) * 500000000
      WHERE key = 'dense'`));
    const x = chiSquare((await picks(f, 'dense', -1, 1500)).flat(), ms);
    assert.ok(x < kChi2Df299, `chi-square ${x.toFixed(1)} (df 299, limit ${kChi2Df299})`);
  });

  it('kv.card larger than the rows: picks end (whole method after 8 rounds) and come from the rows', async () => {
    const f = kFamilies[0];
    const ms = await fill(f, 'stale', 300);
    await withPg((pg) => pg.query(`UPDATE "${schema}".kv SET card = 100000000 WHERE key = 'stale'`));
    for (const count of ['-3', '3', '1']) {
      const r = (await c.call('SRANDMEMBER', 'stale', count)) as Value[];
      assert.equal(r.length, Math.abs(Number(count)));
      for (const m of r) assert.ok(ms.includes(m as string), `${m} is not a member`);
    }
    assert.ok(ms.includes((await c.call('SRANDMEMBER', 'stale')) as string));
  });
});
