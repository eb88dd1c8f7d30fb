/**
 * Differential: HyperLogLog commands against redis-server 7.0 in four connection patterns
 * (collections-compare.ts), every reply byte for byte — GET of the values too, so the sparse
 * opcodes, the promotion to dense (hll-sparse-max-bytes 3000) and the cached cardinality bytes
 * must equal Redis's. Values are corrupted on purpose (SETRANGE, APPEND, SET) and then counted,
 * added to and merged: Redis's answers to broken values are compared as well.
 *
 * Then concurrency: 8 clients PFADD disjoint elements into one key at once; the registers
 * (PFDEBUG GETREG) and PFCOUNT must equal redis-server's for the same inserts (the bytes of a
 * sparse value depend on the order of inserts, the registers do not), so no PFADD was lost.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { differential } from './collections-compare';
import { hllFamily } from './hyperloglog-family';
import { Oracle, report, type Cmd } from './oracle';
import { Rng, seedFromEnv } from './prng';

differential(hllFamily, 20241120);

describe('hyperloglog: concurrent PFADDs into one key', () => {
  let oracle: Oracle;
  before(async () => { oracle = await Oracle.start(); });
  after(async () => { await oracle?.stop(); });

  it('8 clients adding disjoint elements at once leave the registers and the count redis-server has', async (t) => {
    const seed = seedFromEnv(20241121);
    const rng = new Rng(seed);
    const adds: Cmd[][] = Array.from({ length: 8 }, (_, c) => Array.from({ length: 60 }, (_, j) =>
      ['PFADD', 'shared', ...Array.from({ length: rng.between(1, 40) }, (_, e) => `c${c}-${j}-${e}-${rng.int(1000)}`)]));
    await oracle.reset();
    // replies depend on the interleaving (which client's element set a register first): not compared
    await oracle.compare(adds, { window: 8 });
    const check = await oracle.compare([[['PFDEBUG', 'GETREG', 'shared'], ['PFCOUNT', 'shared']]]);
    t.diagnostic(`${adds.flat().length} PFADDs from 8 clients`);
    assert.equal(check.mismatches.length, 0, report('registers after concurrent PFADDs', seed, check));
  });
});
