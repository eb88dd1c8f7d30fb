/**
 * Differential: the blocking commands against redis-server 7.0.15. First every command's errors,
 * immediate serves, timeouts and MULTI forms as plain sessions (RESP2 and RESP3, one at a time
 * and pipelined); then scenarios of several connections, where one blocks and another writes,
 * run step by step against each server and compared as transcripts (every reply's bytes).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Oracle, report, type Cmd } from './oracle';
import { sameTranscripts, served, w, withEvents, type Step } from './blocking-transcript';

let oracle: Oracle;
before(async () => { oracle = await Oracle.start(['--workers', '2', '--storage-mode', 'unlogged']); });
after(async () => { await oracle.stop(); });


const kErrorsAndImmediate: Cmd[] = [
  'BLPOP', 'BLPOP k', 'BLPOP k -1', 'BLPOP k abc', 'BLPOP k 1e16', 'BLPOP k inf', 'BLPOP k nan', 'BLPOP k 1e', 'BLPOP k 1.2e4932',
  'SET s x', 'BLPOP s 1', 'BLPOP nx s 1', 'RPUSH l a b c', 'BLPOP nx l s 0', 'BRPOP l 0', 'BLPOP l l 0',
  'BLMPOP 0 0 l LEFT', 'BLMPOP 0 2 l LEFT', 'BLMPOP 0 1 l UP', 'BLMPOP 0 1 l LEFT COUNT 0', 'BLMPOP -1 1 l LEFT',
  'BLMPOP x 1 l LEFT COUNT 2', 'BLMPOP 0 1 l LEFT COUNT 2 COUNT 1', 'BLMPOP 0 1 l LEFT COUNT', 'RPUSH l d e',
  'BLMPOP 0 2 nx l RIGHT COUNT 5', 'BLMPOP 0 1 s LEFT',
  'BLMOVE l m UP LEFT 0', 'BLMOVE l m LEFT RIGHT -1', 'RPUSH l a', 'BLMOVE l s LEFT RIGHT 0', 'BLMOVE l m LEFT RIGHT 0',
  'BRPOPLPUSH m m 0', 'BRPOPLPUSH s m 0', 'BRPOPLPUSH m m x', 'LRANGE m 0 -1', 'BRPOPLPUSH m n 0', 'EXISTS m',
  'ZADD z 1 a 2 b 3 c', 'BZPOPMIN z 0', 'BZPOPMAX nx z 0', 'BZPOPMIN s 0', 'BZMPOP 0 1 z MAX COUNT 5', 'BZMPOP 0 1 z MID',
  'BZPOPMIN z -2', 'BZMPOP 0 1 s MIN', 'ZADD z 1.5 x', 'BZPOPMAX z 0.5',
  'BLPOP nx 0.01', 'BRPOPLPUSH nx m 0.01', 'BLMOVE nx m LEFT LEFT 0.001', 'BZPOPMAX nx 0.01', 'BZMPOP 0.01 1 nx MIN',
  'BLMPOP 0.01 1 nx LEFT', 'BLPOP nx 0x1p-7', 'BLPOP nx 1e-400',
  'MULTI', 'BLPOP nx 0', 'BRPOPLPUSH nx m 0', 'BZPOPMIN nx 0', 'BLMPOP 0 1 nx LEFT', 'BZMPOP 0 1 nx MAX', 'RPUSH q 1 2',
  'BLPOP q 0', 'BLMOVE q m LEFT LEFT 0', 'BLPOP s 0', 'EXEC',
  'CLIENT UNBLOCK abc', 'CLIENT UNBLOCK 1 foo', 'CLIENT UNBLOCK 99999', 'CLIENT UNBLOCK 1 error x', 'CLIENT UNBLOCK -5',
  'CLIENT UNBLOCK 99999 ERROR',
].map(w);

describe('blocking commands against redis-server: errors, immediate serves, timeouts, MULTI', () => {
  for (const proto of ['2', '3']) {
    for (const window of [1, Infinity]) {
      it(`RESP${proto}, ${window === 1 ? 'one at a time' : 'pipelined'}`, async () => {
        await oracle.reset();
        const r = await oracle.compare([[['HELLO', proto], ...kErrorsAndImmediate]], { window, idleMs: 5000 });
        assert.equal(r.mismatches.length, 0, report(`RESP${proto}`, 0, r));
      });
    }
  }
});

const kScenarios: Record<string, Step[]> = {
  'keyspace events: a timed-out BLPOP fires nothing, a served one lpop and del': withEvents(3, [
    { c: 0, call: 'BLPOP k 0.05' }, ...served('BLPOP k 0', 'RPUSH k x')]),
  'keyspace events: BLMOVE served as LMOVE, the source left non-empty': withEvents(3, served('BLMOVE k d RIGHT LEFT 0', 'RPUSH k a b')),
  'keyspace events: BZMPOP served, emptying the sorted set': withEvents(3, served('BZMPOP 0 1 k MIN COUNT 5', 'ZADD k 2 b 1 a')),
  'BLPOP served by RPUSH': served('BLPOP k 0', 'RPUSH k x'),
  'BRPOP on two keys, the second filled': served('BRPOP k j 0', 'RPUSH j a b', 'LRANGE j 0 -1'),
  'BLMPOP COUNT served by a variadic push': served('BLMPOP 0 2 j k RIGHT COUNT 2', 'RPUSH k a b c', 'LRANGE k 0 -1'),
  'BLMOVE pushes to the destination': [...served('BLMOVE k d RIGHT LEFT 0', 'RPUSH k a b'), { c: 1, call: 'LRANGE d 0 -1' }],
  'BRPOPLPUSH onto itself': served('BRPOPLPUSH k k 0', 'RPUSH k a b', 'LRANGE k 0 -1'),
  'BZPOPMIN served by ZADD': served('BZPOPMIN k 0', 'ZADD k 2 b 1 a', 'ZRANGE k 0 -1'),
  'BZPOPMAX in RESP3': [{ c: 0, call: '~HELLO 3' }, ...served('BZPOPMAX k 0', 'ZADD k 2 b 1 a')],
  'BZMPOP served by ZADD': served('BZMPOP 0 1 k MIN COUNT 5', 'ZADD k 2 b 1 a 3 c'),
  'BLPOP served by LMOVE from another list': [{ c: 1, call: 'RPUSH src a' }, ...served('BLPOP k 0', 'LMOVE src k LEFT LEFT')],
  'three clients served in the order they blocked': [
    { c: 0, send: 'BLPOP k 0' }, { blocked: 1 }, { c: 1, send: 'BLPOP k 0' }, { blocked: 2 }, { c: 2, send: 'BLPOP k 0' },
    { blocked: 3 }, { c: 3, call: 'RPUSH k a b c' }, { c: 0, read: 1 }, { c: 1, read: 1 }, { c: 2, read: 1 },
    { blocked: 0 }, { c: 3, call: 'EXISTS k' },
  ],
  'a MULTI that pushes and deletes wakes nobody; wrong type neither': [
    { c: 0, send: 'BLPOP k 0' }, { blocked: 1 }, { c: 1, call: 'MULTI' }, { c: 1, call: 'LPUSH k a' }, { c: 1, call: 'DEL k' },
    { c: 1, call: 'SET k str' }, { c: 1, call: 'EXEC' }, { c: 1, call: 'DEL k' }, { c: 1, call: 'LPUSH k b' }, { c: 0, read: 1 },
  ],
  'MULTI pushes three, the blocked client gets the last pushed': [
    { c: 0, send: 'BLPOP k 0' }, { blocked: 1 }, { c: 1, call: 'MULTI' }, { c: 1, call: 'LPUSH k a' }, { c: 1, call: 'LPUSH k b' },
    { c: 1, call: 'LPUSH k c' }, { c: 1, call: 'EXEC' }, { c: 0, read: 1 }, { c: 1, call: 'LRANGE k 0 -1' },
  ],
  'BRPOPLPUSH to a wrong-type destination answers WRONGTYPE when served, the element stays': [
    { c: 1, call: 'SET d x' }, { c: 0, send: 'BRPOPLPUSH k d 0' }, { blocked: 1 }, { c: 1, call: 'RPUSH k a b c' },
    { c: 0, read: 1 }, { c: 1, call: 'LRANGE k 0 -1' },
  ],
  // Redis 7.0's unit/type/list "BRPOPLPUSH with multiple blocked clients": the first waiter's
  // WRONGTYPE left the element, and the second (told "not first" by the same wake-up) waited forever
  'two BRPOPLPUSH waiters, the first to a wrong-type destination: WRONGTYPE, then the second served': [
    { c: 2, call: 'SET d1 x' }, { c: 0, send: 'BRPOPLPUSH k d1 0' }, { blocked: 1 }, { c: 1, send: 'BRPOPLPUSH k d2 0' },
    { blocked: 2 }, { c: 2, call: 'LPUSH k foo' }, { c: 0, read: 1 }, { c: 1, read: 1 }, { c: 2, call: 'LRANGE d2 0 -1' },
  ],
  'CLIENT UNBLOCK TIMEOUT and ERROR, CLIENT LIST flag b': [
    { c: 0, id: true }, { c: 0, send: 'BLPOP k 0' }, { blocked: 1 }, { c: 1, flagsOf: 0 }, { c: 1, unblock: 0 },
    { c: 0, read: 1 }, { c: 1, flagsOf: 0 }, { c: 1, unblock: 0 }, { c: 0, send: 'BZPOPMIN k 0' }, { blocked: 1 },
    { c: 1, unblock: 0, how: 'ERROR' }, { c: 0, read: 1 }, { c: 0, send: 'BRPOPLPUSH k d 0' }, { blocked: 1 },
    { c: 1, unblock: 0, how: 'timeout' }, { c: 0, read: 1 }, { c: 1, call: 'RPUSH k a' }, { c: 1, call: 'LLEN k' },
  ],
  'commands pipelined behind a blocked BLPOP wait for it': [
    { c: 0, send: 'BLPOP k 0 | PING | RPUSH k mine | LLEN k' }, { blocked: 1 }, { c: 1, call: 'RPUSH k x' }, { c: 0, read: 4 },
  ],
  'SWAPDB wakes a client blocked in the other db': [
    { c: 0, call: 'SELECT 9' }, { c: 0, send: 'BRPOP k 5' }, { blocked: 1 }, { c: 1, call: 'SELECT 1' },
    { c: 1, call: 'RPUSH k hello' }, { c: 1, call: 'SWAPDB 1 9' }, { c: 0, read: 1 },
  ],
  'RENAME and MOVE put a list in place': [
    { c: 0, send: 'BLPOP k 0' }, { blocked: 1 }, { c: 1, call: 'RPUSH other a b' }, { c: 1, call: 'RENAME other k' },
    { c: 0, read: 1 }, { c: 0, call: 'SELECT 2' }, { c: 0, send: 'BLPOP k 0' }, { blocked: 1 }, { c: 1, call: 'MOVE k 2' },
    { c: 0, read: 1 },
  ],
  'a client that disconnects while blocked takes nothing': [
    { c: 0, send: 'BLPOP k 0' }, { blocked: 1 }, { close: 0 }, { blocked: 0 }, { c: 1, call: 'RPUSH k x' }, { c: 1, call: 'LLEN k' },
  ],
  'a timed-out client takes nothing pushed later': [
    { c: 0, call: 'BLPOP k 0.05' }, { blocked: 0 }, { c: 1, call: 'RPUSH k x' }, { c: 1, call: 'LLEN k' },
  ],
};

describe('blocking scenarios against redis-server', () => {
  for (const [name, steps] of Object.entries(kScenarios)) it(name, () => sameTranscripts(oracle, steps));
});
