/**
 * Differential: CONFIG SET of memory options against redis-server 7.0 — values with units, and
 * Redis's "argument must be a memory value" for anything else (maxmemory takes no effect here
 * but is checked like Redis's; the suite's unit/multi "MULTI with config error" relies on it).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compareSteps, exact } from './collections-compare';
import { Oracle, report } from './oracle';

const kValues = ['bla', '-1', '1.5mb', ' 1', '1gb', '1GB', '10kb', '1k', '100'];

describe('CONFIG SET memory values, as redis-server', () => {
  let oracle: Oracle;
  before(async () => { oracle = await Oracle.start(); });
  after(async () => { await oracle?.stop(); });

  it('maxmemory, proto-max-bulk-len, client-query-buffer-limit; an error inside MULTI', async (t) => {
    const steps = [
      ...kValues.flatMap((v) => [exact('CONFIG', 'SET', 'maxmemory', v), exact('CONFIG', 'GET', 'maxmemory')]),
      ...['bla', '-1', '2mb', '2MB'].flatMap((v) => [exact('CONFIG', 'SET', 'proto-max-bulk-len', v),
        exact('CONFIG', 'SET', 'client-query-buffer-limit', v)]),
      exact('CONFIG', 'GET', 'proto-max-bulk-len'),
      exact('CONFIG', 'SET', 'maxmemory', '0'), // 100 bytes would make redis-server refuse writes (OOM)
      exact('MULTI'), exact('SET', 'foo', 'bar'), exact('CONFIG', 'SET', 'maxmemory', 'bla'), exact('EXEC'),
      exact('CONFIG', 'SET', 'maxmemory', '0', 'proto-max-bulk-len', '512mb', 'client-query-buffer-limit', '1gb'),
    ];
    const r = await compareSteps(oracle, [steps]);
    t.diagnostic(`${r.commands} commands, ${r.mismatches.length} differ`);
    assert.equal(r.mismatches.length, 0, report('CONFIG SET memory', 0, r));
  });
});
