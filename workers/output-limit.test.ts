import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OutputLimiter } from './output-limit';

describe('OutputLimiter (client-output-buffer-limit normal)', () => {
  it('no limits: never', () => {
    const l = new OutputLimiter(() => undefined);
    assert.equal(l.exceeded(1e12, { hard: 0, soft: 0, softSeconds: 0 }), false);
  });

  it('over the hard limit: at once', () => {
    const l = new OutputLimiter(() => undefined);
    assert.equal(l.exceeded(100, { hard: 100, soft: 0, softSeconds: 0 }), false);
    assert.equal(l.exceeded(101, { hard: 100, soft: 0, softSeconds: 0 }), true);
  });

  it('over the soft limit: once it stayed over for softSeconds, checked again by a timer', async () => {
    let rechecks = 0;
    const l = new OutputLimiter(() => { rechecks++; });
    const limit = { hard: 0, soft: 10, softSeconds: 0 };
    // 0 seconds: over → due now
    assert.equal(l.exceeded(11, limit), true);
    const slow = { hard: 0, soft: 10, softSeconds: 0.05 };
    const l2 = new OutputLimiter(() => { rechecks++; });
    assert.equal(l2.exceeded(11, slow), false);
    assert.equal(l2.exceeded(11, slow), false); // one timer, not two
    for (let i = 0; i < 500 && rechecks === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(rechecks, 1);
    assert.equal(l2.exceeded(11, slow), true);
    // dropping under the soft limit starts the count again
    const l3 = new OutputLimiter(() => undefined);
    l3.exceeded(11, { hard: 0, soft: 10, softSeconds: 60 });
    assert.equal(l3.exceeded(5, { hard: 0, soft: 10, softSeconds: 60 }), false);
    l3.stop();
  });
});
