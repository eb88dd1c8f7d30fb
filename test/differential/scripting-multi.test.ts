/**
 * Differential: script calls queued in MULTI (EVAL, EVALSHA, SCRIPT LOAD, FUNCTION LOAD, FCALL)
 * against redis-server 7.0.15, byte for byte, in RESP2 and RESP3, one command at a time and as one
 * pipeline. Found by BullMQ's FlowProducer (ioredis sends a script's first use on a connection as
 * EVAL, the next as EVALSHA, both in one MULTI): EVALSHA behind an EVAL of the same script answered
 * NOSCRIPT, and so did the EVAL; a queued EVAL also ran out of order with the block's other
 * commands, and ran when a WATCHed key had changed (EXEC answered nil).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Oracle, report, type Cmd } from './oracle';

let oracle: Oracle;
before(async () => { oracle = await Oracle.start(); });
after(async () => { await oracle?.stop(); });

const sha = (body: string): string => createHash('sha1').update(body).digest('hex');
const kGet = "return redis.call('get', KEYS[1])";
const kIncr = "return redis.call('incr', KEYS[1])";
const kLib = "#!lua name=mlib\nredis.register_function('mfn', function(keys) return redis.call('incr', keys[1]) end)";

/** each starts from no cached script and no library (SCRIPT FLUSH, FUNCTION FLUSH) */
const kSessions: Record<string, Cmd[]> = {
  'EVAL then EVALSHA of the same script in one MULTI': [
    ['MULTI'], ['EVAL', 'return 3', '0'], ['EVALSHA', sha('return 3'), '0'], ['EXEC'],
    ['EVALSHA', sha('return 3'), '0'],
  ],
  'EVAL then EVALSHA, no MULTI': [
    ['EVAL', 'return 4', '0'], ['EVALSHA', sha('return 4'), '0'], ['EVALSHA', sha('return 4'), '0'],
  ],
  'EVALSHA before EVAL in one MULTI (NOSCRIPT for the first)': [
    ['MULTI'], ['EVALSHA', sha('return 5'), '0'], ['EVAL', 'return 5', '0'], ['EVALSHA', sha('return 5'), '0'], ['EXEC'],
  ],
  'SCRIPT LOAD then EVALSHA in one MULTI': [
    ['MULTI'], ['SCRIPT', 'LOAD', 'return 6'], ['EVALSHA', sha('return 6'), '0'], ['SCRIPT', 'EXISTS', sha('return 6')], ['EXEC'],
  ],
  'SCRIPT FLUSH between EVAL and EVALSHA in one MULTI': [
    ['MULTI'], ['EVAL', 'return 7', '0'], ['SCRIPT', 'FLUSH'], ['EVALSHA', sha('return 7'), '0'], ['EVAL', 'return 7', '0'], ['EXEC'],
  ],
  'scripts in order with the block\'s other commands': [
    ['DEL', 'k'], ['MULTI'], ['SET', 'k', '1'], ['EVAL', kGet, '1', 'k'], ['EVAL', kIncr, '1', 'k'], ['GET', 'k'],
    ['INCR', 'k'], ['EVALSHA', sha(kGet), '1', 'k'], ['EVALSHA', sha(kIncr), '1', 'k'], ['LPUSH', 'k', 'x'],
    ['EVALSHA', sha(kIncr), '1', 'k'], ['GET', 'k'], ['EXEC'], ['GET', 'k'],
  ],
  'a WATCHed key changed: no queued script runs': [
    ['SET', 'w', '1'], ['WATCH', 'w'], ['SET', 'w', '2'], ['MULTI'], ['EVAL', kIncr, '1', 'w'], ['INCR', 'w'], ['EXEC'], ['GET', 'w'],
    ['WATCH', 'w'], ['MULTI'], ['EVAL', kIncr, '1', 'w'], ['INCR', 'w'], ['EXEC'], ['GET', 'w'],
  ],
  'FUNCTION LOAD then FCALL in one MULTI': [
    ['DEL', 'f'], ['MULTI'], ['FCALL', 'mfn', '1', 'f'], ['FUNCTION', 'LOAD', kLib], ['FCALL', 'mfn', '1', 'f'], ['GET', 'f'],
    ['FUNCTION', 'DELETE', 'mlib'], ['FCALL', 'mfn', '1', 'f'], ['EXEC'],
  ],
};

async function resetScripts(): Promise<void> {
  await oracle.reset();
  const r = await oracle.compare([[['SCRIPT', 'FLUSH'], ['FUNCTION', 'FLUSH']]]);
  assert.equal(r.mismatches.length, 0, report('reset', 0, r));
}

describe('script calls queued in MULTI against redis-server 7.0.15', () => {
  for (const proto of ['2', '3']) {
    for (const window of [1, Infinity]) {
      it(`RESP${proto}, ${window === 1 ? 'one command at a time' : 'one pipeline'}`, async () => {
        const failures: string[] = [];
        for (const [name, cmds] of Object.entries(kSessions)) {
          await resetScripts();
          const r = await oracle.compare([[['HELLO', proto], ...cmds]], { window });
          if (r.mismatches.length > 0) failures.push(report(name, 0, r));
        }
        assert.equal(failures.length, 0, failures.join('\n'));
      });
    }
  }
});
