import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { hookListening } from './hook-listening';

describe('telling the primary whether the write hook listens', () => {
  it('on at once; a wait after wait sends nothing more; off once still off at the check', async () => {
    const told: boolean[] = [];
    const tell = hookListening((l) => told.push(l), 30);
    tell(true);
    assert.deepEqual(told, [true]);
    // a client blocking again and again (XREAD BLOCK, BZPOPMIN): on/off 100 times
    for (let i = 0; i < 100; i++) { tell(false); tell(true); }
    tell(false);
    assert.deepEqual(told, [true]);
    await sleep(80);
    assert.deepEqual(told, [true, false]);
    tell(true);
    assert.deepEqual(told, [true, false, true]);
  });

  it('listening again before the check: off is not told', async () => {
    const told: boolean[] = [];
    const tell = hookListening((l) => told.push(l), 20);
    tell(true);
    tell(false);
    tell(true);
    await sleep(60);
    assert.deepEqual(told, [true]);
    tell(false);
    await sleep(60);
    assert.deepEqual(told, [true, false]);
  });
});
