/**
 * Differential: SAVE, BGSAVE and LASTSAVE against redis-server 7.0 — arity and syntax errors,
 * SAVE refused inside MULTI (the suite's unit/multi "MULTI with SAVE"), SAVE as a CHECKPOINT,
 * and LASTSAVE moving to the checkpoint's time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compareSteps, exact } from './collections-compare';
import { Oracle, report } from './oracle';
import { RawClient, encode } from '../e2e/resp-client';

// SAVE is a CHECKPOINT of the whole test Postgres, which every other test file of the run writes
// into at the same time: 30 s and more at load average 10-20 on 2 cores (measured in full runs),
// under a second when alone. The reply is what is compared, not how fast it comes.
const kSaveReplyMs = 180_000;

describe('SAVE, BGSAVE, LASTSAVE, as redis-server', () => {
  let oracle: Oracle;
  before(async () => { oracle = await Oracle.start(); });
  after(async () => { await oracle?.stop(); });

  it('errors, SAVE inside MULTI, replies', async (t) => {
    const steps = [
      exact('SAVE', 'x'), exact('LASTSAVE', 'x'), exact('BGSAVE', 'foo'), exact('BGSAVE', 'a', 'b'),
      exact('DEL', 'foo'), exact('MULTI'), exact('SET', 'foo', 'bar'), exact('SAVE'), exact('EXEC'), exact('GET', 'foo'),
      exact('SAVE'),
      // last: a second BGSAVE while redis-server's child still writes would be refused there
      exact('BGSAVE', 'SCHEDULE'),
    ];
    const r = await compareSteps(oracle, [steps], 1, kSaveReplyMs);
    t.diagnostic(`${r.commands} commands, ${r.mismatches.length} differ`);
    assert.equal(r.mismatches.length, 0, report('SAVE', 0, r));
  });

  it('LASTSAVE is the time of the checkpoint SAVE made', async () => {
    const c = await RawClient.connect(oracle.postresp.port);
    try {
      const before = Math.floor(Date.now() / 1000);
      c.send(encode('SAVE'));
      assert.deepEqual(await c.read(1, kSaveReplyMs), ['OK']);
      const at = await c.call('LASTSAVE');
      assert.equal(typeof at, 'number');
      assert.ok((at as number) >= before - 1 && (at as number) <= Math.ceil(Date.now() / 1000), `LASTSAVE ${at}, SAVE at ${before}`);
    } finally {
      c.socket.destroy();
    }
  });
});
