/**
 * Differential: XREAD / XREADGROUP BLOCK against redis-server 7.0.15, as scenarios of several
 * connections (blocking-transcript.ts): served by XADD, '$' taken when the call blocks, timeouts
 * (RESP2 and RESP3), several readers, NOACK, CLIENT UNBLOCK, MULTI, and the ways Redis 7.0 ends a
 * blocked XREADGROUP whose key or group goes (UNBLOCKED / NOGROUP) while an XREAD stays blocked.
 */
import { after, before, describe, it } from 'node:test';
import { Oracle } from './oracle';
import { sameTranscripts, served, withEvents, type Step } from './blocking-transcript';

let oracle: Oracle;
before(async () => { oracle = await Oracle.start(['--workers', '2', '--storage-mode', 'unlogged']); });
after(async () => { await oracle.stop(); });

const group = { c: 1, call: 'XGROUP CREATE k g $ MKSTREAM' };

const kScenarios: Record<string, Step[]> = {
  'XREAD $ served by XADD; $ is the last id when it blocked': [
    { c: 1, call: 'XADD k 1-1 old x' }, ...served('XREAD BLOCK 0 STREAMS k $', 'XADD k 2-0 new y', 'XLEN k'),
  ],
  'XREAD on three keys, the middle one filled, COUNT 1': [
    { c: 1, call: 'XADD j 5-0 a b' },
    ...served('XREAD COUNT 1 BLOCK 0 STREAMS i j l $ $ $', 'XADD j 6-0 c d', 'XRANGE j - +'),
  ],
  'XREAD with an explicit id below a deleted last entry waits for a newer one': [
    { c: 1, call: 'XADD k 666 key value' }, { c: 1, call: 'XDEL k 666' }, { c: 0, call: 'XREAD BLOCK 10 STREAMS k 665' },
    ...served('XREAD BLOCK 0 STREAMS k 665', 'XADD k 667 key value'),
  ],
  'XREAD timeouts: a null array, RESP3 null': [
    { c: 0, call: 'XREAD BLOCK 30 STREAMS k $' }, { c: 0, call: '~HELLO 3' }, { c: 0, call: 'XREAD BLOCK 30 STREAMS k 0' },
    { c: 0, call: 'XREADGROUP GROUP g c BLOCK 30 STREAMS k >' }, group, { c: 0, call: 'XREADGROUP GROUP g c BLOCK 30 STREAMS k >' },
  ],
  'three XREADs served by one XADD, RESP3 for one': [
    { c: 2, call: '~HELLO 3' }, { c: 0, send: 'XREAD BLOCK 0 STREAMS k $' }, { blocked: 1 },
    { c: 1, send: 'XREAD BLOCK 0 STREAMS k 0' }, { blocked: 2 }, { c: 2, send: 'XREAD BLOCK 0 STREAMS k $' }, { blocked: 3 },
    { c: 3, call: 'XADD k 3-0 f v' }, { c: 0, read: 1 }, { c: 1, read: 1 }, { c: 2, read: 1 }, { blocked: 0 },
  ],
  'XREADGROUP > served by XADD, then pending': [
    group, ...served('XREADGROUP GROUP g alice BLOCK 0 STREAMS k >', 'XADD k 1-0 f v', 'XPENDING k g'),
  ],
  'XREADGROUP NOACK served: nothing pending': [
    group, ...served('XREADGROUP GROUP g bob COUNT 5 BLOCK 0 NOACK STREAMS k >', 'XADD k 1-0 f v', 'XPENDING k g'),
  ],
  'two groups each served the same entry': [
    group, { c: 1, call: 'XGROUP CREATE k h $' }, { c: 0, send: 'XREADGROUP GROUP g a BLOCK 0 STREAMS k >' }, { blocked: 1 },
    { c: 2, send: 'XREADGROUP GROUP h b BLOCK 0 STREAMS k >' }, { blocked: 2 }, { c: 1, call: 'XADD k 4-0 x y' },
    { c: 0, read: 1 }, { c: 2, read: 1 }, { c: 1, call: 'XINFO GROUPS k' },
  ],
  'XREADGROUP with an id other than > does not block': [group, { c: 0, call: 'XREADGROUP GROUP g a BLOCK 0 STREAMS k 0' }],
  'a blocked XREADGROUP whose key is deleted, overwritten or flushed: UNBLOCKED': [
    group, ...served('XREADGROUP GROUP g a BLOCK 0 STREAMS k >', 'DEL k'),
    group, ...served('XREADGROUP GROUP g a BLOCK 0 STREAMS k >', 'SET k v'), { c: 1, call: 'DEL k' },
    group, ...served('XREADGROUP GROUP g a BLOCK 0 STREAMS k >', 'FLUSHALL'),
    group, { c: 0, send: 'XREADGROUP GROUP g a BLOCK 0 STREAMS k >' }, { blocked: 1 }, { c: 1, call: 'MULTI' },
    { c: 1, call: 'DEL k' }, { c: 1, call: 'SADD k e1' }, { c: 1, call: 'EXEC' }, { c: 0, read: 1 },
  ],
  'XGROUP DESTROY answers a blocked XREADGROUP NOGROUP; XGROUP SETID wakes nobody': [
    group, ...served('XREADGROUP GROUP g a BLOCK 0 STREAMS k >', 'XGROUP DESTROY k g'),
    { c: 1, call: 'XADD k 1-0 f v' }, { c: 1, call: 'XGROUP CREATE k g $' }, { c: 0, send: 'XREADGROUP GROUP g a BLOCK 0 STREAMS k >' }, { blocked: 1 },
    { c: 1, call: 'XGROUP SETID k g 0' }, { blocked: 1 }, { c: 1, call: 'XADD k 2-0 f v' }, { c: 0, read: 1 },
  ],
  'RENAME puts a stream with the group in place, or one without it': [
    { c: 1, call: 'XGROUP CREATE k2 g $ MKSTREAM' }, { c: 1, call: 'XADD k2 100 f1 v1' }, group,
    ...served('XREADGROUP GROUP g a BLOCK 0 STREAMS k >', 'RENAME k2 k'),
    { c: 1, call: 'XADD k3 100 f1 v1' }, ...served('XREADGROUP GROUP g a BLOCK 0 STREAMS k >', 'RENAME k3 k'),
  ],
  'a blocked XREAD stays blocked when its key is deleted or overwritten': [
    { c: 1, call: 'XADD k 666 f v' }, { c: 0, send: 'XREAD BLOCK 0 STREAMS k $' }, { blocked: 1 }, { c: 1, call: 'SET k v' },
    { c: 1, call: 'DEL k' }, { blocked: 1 }, { c: 1, call: 'MULTI' }, { c: 1, call: 'XADD k 667 old x' }, { c: 1, call: 'DEL k' },
    { c: 1, call: 'EXEC' }, { c: 1, call: 'XADD k 668 new y' }, { c: 0, read: 1 },
  ],
  'RESTORE of a stream serves a blocked XREAD, new key or REPLACE': [
    { c: 1, call: 'XADD src 5-0 f v' }, { c: 0, send: 'XREAD BLOCK 0 STREAMS k 0' }, { blocked: 1 },
    { c: 1, restore: 'k', from: 'src' }, { c: 0, read: 1 },
    { c: 1, call: 'XADD src 9-0 g w' }, { c: 0, send: 'XREAD BLOCK 0 STREAMS k $' }, { blocked: 1 },
    { c: 1, restore: 'k', from: 'src', replace: true }, { c: 0, read: 1 }, { c: 1, call: 'XLEN k' },
  ],
  'RESTORE REPLACE under a blocked XREADGROUP: with the group and new entries, or without the group': [
    { c: 1, call: 'XGROUP CREATE src g 0 MKSTREAM' }, { c: 1, call: 'XADD src 5-0 f v' }, group,
    { c: 0, send: 'XREADGROUP GROUP g a BLOCK 0 STREAMS k >' }, { blocked: 1 },
    { c: 1, restore: 'k', from: 'src', replace: true }, { c: 0, read: 1 }, { c: 1, call: 'XPENDING k g' },
    { c: 1, call: 'XADD plain 7-0 f v' }, { c: 0, send: 'XREADGROUP GROUP g a BLOCK 0 STREAMS k >' }, { blocked: 1 },
    { c: 1, restore: 'k', from: 'plain', replace: true }, { c: 0, read: 1 }, { blocked: 0 },
  ],
  'inside MULTI XREAD and XREADGROUP BLOCK answer at once': [
    group, { c: 0, call: 'MULTI' }, { c: 0, call: 'XREAD BLOCK 0 STREAMS k $' }, { c: 0, call: 'XREADGROUP GROUP g a BLOCK 0 STREAMS k >' },
    { c: 0, call: 'EXEC' },
  ],
  'inside a script BLOCK is an error': [
    { c: 0, call: 'XADD k 1-0 f v' }, { c: 0, call: 'EVAL return(redis.pcall("XREAD","BLOCK","0","STREAMS","k","0")) 0' },
    { c: 0, call: 'EVAL return(redis.pcall("xreadgroup","GROUP","g","c","BLOCK","-1","STREAMS","k",">")) 0' },
    { c: 0, call: 'EVAL return(redis.pcall("XREAD","BLOCK","x","STREAMS","k","0")) 0' },
  ],
  'CLIENT UNBLOCK TIMEOUT and ERROR end blocked stream reads': [
    group, { c: 0, id: true }, { c: 0, send: 'XREAD BLOCK 0 STREAMS k $' }, { blocked: 1 }, { c: 1, flagsOf: 0 }, { c: 1, unblock: 0 },
    { c: 0, read: 1 }, { c: 0, send: 'XREADGROUP GROUP g a BLOCK 0 STREAMS k >' }, { blocked: 1 },
    { c: 1, unblock: 0, how: 'ERROR' }, { c: 0, read: 1 }, { c: 1, call: 'XINFO CONSUMERS k g' },
  ],
  'commands pipelined behind a blocked XREAD wait for it': [
    { c: 0, send: 'XREAD BLOCK 0 STREAMS k $ | PING | XADD k 9-0 mine x | XLEN k' }, { blocked: 1 }, { c: 1, call: 'XADD k 5-0 f v' },
    { c: 0, read: 4 },
  ],
  'a client that disconnects while blocked in XREADGROUP takes nothing': [
    group, { c: 0, send: 'XREADGROUP GROUP g a BLOCK 0 STREAMS k >' }, { blocked: 1 }, { close: 0 }, { blocked: 0 },
    { c: 1, call: 'XADD k 1-0 f v' }, { c: 1, call: 'XPENDING k g' },
  ],
  'keyspace events: a timed-out XREADGROUP fires nothing, a served one xgroup-createconsumer after xadd': withEvents(3, [
    group, { c: 0, call: 'XREADGROUP GROUP g a BLOCK 30 STREAMS k >' },
    ...served('XREADGROUP GROUP g a BLOCK 0 STREAMS k >', 'XADD k 1-0 f v')]),
};

describe('XREAD / XREADGROUP BLOCK scenarios against redis-server', () => {
  for (const [name, steps] of Object.entries(kScenarios)) it(name, () => sameTranscripts(oracle, steps));
});
