/**
 * Differential: a BLOCK read and another client's write sent right after it, without waiting for
 * the read to block (Redis 7.0's stream-cgroups unit does this). Redis runs the two in arrival
 * order; PostRESP does for clients of one worker (one lane: statements reach Postgres in the
 * order the worker took the commands), so the server here has one worker. Across workers and
 * instances the two may reach Postgres either way round (docs/streams.md#block).
 */
import { after, before, describe, it } from 'node:test';
import { Oracle } from './oracle';
import { sameTranscripts, type Step } from './blocking-transcript';

let oracle: Oracle;
before(async () => { oracle = await Oracle.start(['--workers', '1', '--storage-mode', 'unlogged']); });
after(async () => { await oracle.stop(); });

// c0 answers a PING first: a connection's first bytes wait for the primary to hand it to the worker
const stream = [{ c: 0, call: 'PING' }, { c: 1, call: 'XADD k 666 f v' }, { c: 1, call: 'XGROUP CREATE k g $' }];

const kScenarios: Record<string, Step[]> = {
  // '$' and the first read were two round trips: the SET, queued between them, made it WRONGTYPE
  'XREAD $ then SET, DEL, XADD at once: the XREAD blocks and is served by the XADD': [
    ...stream, { c: 0, send: 'XREAD BLOCK 0 STREAMS k $' }, { c: 1, call: 'SET k v' }, { c: 1, call: 'DEL k' },
    { c: 1, call: 'XADD k 667 f v' }, { c: 0, read: 1 },
  ],
  'XREAD $ then DEL, XADD at once': [
    ...stream, { c: 0, send: 'XREAD BLOCK 0 STREAMS k $' }, { c: 1, call: 'DEL k' }, { c: 1, call: 'XADD k 667 f v' }, { c: 0, read: 1 },
  ],
  'XREADGROUP > then DEL, SET or FLUSHALL at once: UNBLOCKED': [
    ...stream, { c: 0, send: 'XREADGROUP GROUP g a BLOCK 0 STREAMS k >' }, { c: 1, call: 'DEL k' }, { c: 0, read: 1 },
    ...stream, { c: 0, send: 'XREADGROUP GROUP g a BLOCK 0 STREAMS k >' }, { c: 1, call: 'SET k v' }, { c: 0, read: 1 },
    { c: 1, call: 'DEL k' },
    ...stream, { c: 0, send: 'XREADGROUP GROUP g a BLOCK 0 STREAMS k >' }, { c: 1, call: 'FLUSHALL' }, { c: 0, read: 1 },
  ],
};

describe('a BLOCK read and a write sent right after it, one worker, against redis-server', () => {
  for (const [name, steps] of Object.entries(kScenarios)) it(name, () => sameTranscripts(oracle, steps));
});
