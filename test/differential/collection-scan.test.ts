/**
 * Differential: HSCAN / SSCAN of small collections against redis-server 7.0. Redis sends a key
 * kept in a compact encoding whole, with cursor 0, whatever the cursor and COUNT: an intset
 * (≤ 512 integer members; 7.0 has no listpack sets) in numeric order, compared byte for byte; a
 * listpack hash (≤ 128 fields and values of ≤ 64 bytes) in insertion order, which PostRESP does
 * not keep, so compared as cursor 0 plus the same pairs. (ZSCAN is exact in
 * collections-zset.test.ts.) Keys only ever grow within those limits here: Redis never turns a
 * hashtable back into an intset or a listpack, so a key that once exceeded them stays paged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compareSteps, exact, norm, type Step } from './collections-compare';
import { Oracle, report } from './oracle';
import { Rng, seedFromEnv } from './prng';

const seed = seedFromEnv(20261130);
const kInts = ['0', '1', '-1', '10', '7', '-250', '9223372036854775807', '-9223372036854775808', '4294967296', '65536'];
const kCursors = ['0', '0', '3', '18446744073709551615'];
const kMatches = [[], [], ['MATCH', '1*'], ['MATCH', '-*'], ['MATCH', 'f1*']];

function intsetSteps(rng: Rng): Step[] {
  const out: Step[] = [];
  for (let k = 0; k < 6; k++) {
    const key = `i${k}`;
    const size = rng.pick([1, 3, 11, 40, 200, 512]);
    const members = new Set<string>();
    while (members.size < size) members.add(rng.chance(0.3) ? rng.pick(kInts) : String(rng.between(-100000, 100000)));
    const all = [...members];
    for (let i = 0; i < all.length; i += 100) out.push(exact('SADD', key, ...all.slice(i, i + 100)));
    if (rng.chance(0.5)) out.push(exact('SREM', key, ...all.slice(0, 3)));
    for (let n = 0; n < 4; n++) {
      out.push(exact('SSCAN', key, rng.pick(kCursors), ...rng.pick([[], ['COUNT', '1'], ['COUNT', '5']]), ...rng.pick(kMatches)));
    }
  }
  return out;
}

function hashSteps(rng: Rng): Step[] {
  const out: Step[] = [];
  for (let k = 0; k < 6; k++) {
    const key = `h${k}`;
    const size = rng.pick([1, 12, 40, 128]);
    const pairs: string[] = [];
    for (let i = 0; i < size; i++) pairs.push(`f${i}`, rng.chance(0.1) ? 'v'.repeat(64) : `v${rng.int(1000)}`);
    for (let i = 0; i < pairs.length; i += 50) out.push(exact('HSET', key, ...pairs.slice(i, i + 50)));
    if (rng.chance(0.5)) out.push(exact('HDEL', key, 'f0', 'f3'));
    for (let n = 0; n < 3; n++) {
      out.push(norm('scan-pairs', 'HSCAN', key, rng.pick(kCursors), ...rng.pick([[], ['COUNT', '1']]), ...rng.pick(kMatches)));
    }
  }
  return out;
}

describe('small collections scan whole, as redis-server', () => {
  let oracle: Oracle;
  before(async () => { oracle = await Oracle.start(); });
  after(async () => { await oracle?.stop(); });

  const check = async (t: { diagnostic(s: string): void }, label: string, steps: Step[]) => {
    const r = await compareSteps(oracle, [steps], 20);
    t.diagnostic(`${label}: ${r.commands} commands, ${r.mismatches.length} differ (seed ${seed})`);
    assert.equal(r.mismatches.length, 0, report(label, seed, r));
  };
  it('SSCAN of intsets: every member in one reply, numeric order', (t) => check(t, 'intsets', intsetSteps(new Rng(seed).fork('intset'))));
  it('HSCAN of listpack hashes: every field in one reply', (t) => check(t, 'hashes', hashSteps(new Rng(seed).fork('hash'))));
});
