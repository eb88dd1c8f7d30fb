/**
 * SCRIPT KILL / FUNCTION KILL across two instances on one schema (core/engine/commands/scripting/
 * kill.ts): a script or function running on instance b is stopped from a client of instance a, a
 * KILL of the other kind answers BUSY, one that wrote answers UNKILLABLE, none answers NOTBUSY;
 * a script past lua-time-limit is logged once.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { RawClient, type Value } from './resp-client';
import { startServer, uniqueSchema, type RunningServer } from './start-server';
import { withPg } from '../support/pg';

let a: RunningServer;
let b: RunningServer;
const schema = uniqueSchema('kill');

before(async () => {
  [a, b] = await Promise.all([0, 1].map(() => startServer(['--workers', '1', '--storage-mode', 'unlogged'], { schema })));
});
after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await withPg(async (c) => void (await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`))).catch(() => undefined);
});

const errorOf = (v: Value): string => (v as { error?: string } | null)?.error ?? String(v);

/** `cmd` on a until it answers something else than NOTBUSY (the call on b has begun): that answer */
async function untilSeen(c: RawClient, ...cmd: string[]): Promise<string> {
  let r = '';
  // 20 s, not a number of tries: under load a call took seconds to begin
  for (const end = Date.now() + 20_000; Date.now() < end;) {
    const v = await c.call(...cmd);
    r = v === 'OK' ? 'OK' : errorOf(v);
    if (!r.startsWith('NOTBUSY')) break;
    await new Promise((res) => setTimeout(res, 10));
  }
  return r;
}

describe('SCRIPT KILL and FUNCTION KILL reach the other instance', () => {
  it('nothing running anywhere: NOTBUSY for both', async () => {
    const c = await RawClient.connect(a.port);
    assert.equal(errorOf(await c.call('SCRIPT', 'KILL')), 'NOTBUSY No scripts in execution right now.');
    assert.equal(errorOf(await c.call('FUNCTION', 'KILL')), 'NOTBUSY No scripts in execution right now.');
    c.close();
  });

  // [what runs on b, how it starts, its KILL, the other KIND's KILL]
  const kRuns: [string, string[], string, string][] = [
    ['a script', ['EVAL', 'while true do end', '0'], 'SCRIPT', 'FUNCTION'],
    ['a function', ['FCALL', 'spin', '0'], 'FUNCTION', 'SCRIPT'],
  ];
  for (const [what, start, kill, other] of kRuns) {
    it(`${what} on b: ${other} KILL on a answers BUSY, ${kill} KILL on a stops it`, async () => {
      const [ca, cb] = await Promise.all([RawClient.connect(a.port), RawClient.connect(b.port)]);
      const lib = "#!lua name=spinlib\nredis.register_function('spin', function() while true do end end)";
      assert.equal(await ca.call('FUNCTION', 'LOAD', 'REPLACE', lib), 'spinlib');
      const stuck = cb.call(...start);
      assert.equal(await untilSeen(ca, other, 'KILL'), `BUSY Redis is busy running a script. You can only call ${kill} KILL or SHUTDOWN NOSAVE.`);
      assert.equal(await untilSeen(ca, kill, 'KILL'), 'OK');
      assert.match(errorOf(await stuck), /^ERR Script killed by user with SCRIPT KILL/);
      ca.close();
      cb.close();
    });
  }

  it('a script past lua-time-limit is logged once, as Redis does, saying that nobody is blocked', async () => {
    const [cb, other] = await Promise.all([RawClient.connect(b.port), RawClient.connect(b.port)]);
    assert.equal(await cb.call('CONFIG', 'SET', 'lua-time-limit', '50'), 'OK');
    const body = 'while true do end -- slow';
    const sha = createHash('sha1').update(body).digest('hex');
    const stuck = cb.call('EVAL', body, '0');
    const line = String.raw`Slow script detected: still in execution after \d+ milliseconds\. You can try killing the script using the SCRIPT KILL command\. Script name is: ${sha}\. Other clients are not blocked`;
    for (const end = Date.now() + 20_000; Date.now() < end && !new RegExp(line).test(b.output());) await new Promise((res) => setTimeout(res, 20));
    assert.equal(await other.call('SET', 'kill:other', '1'), 'OK');
    // a few more checks (every 100 ms) find it again: still one line
    await new Promise((res) => setTimeout(res, 400));
    assert.equal(b.output().match(new RegExp(line, 'g'))?.length, 1);
    assert.equal(await other.call('SCRIPT', 'KILL'), 'OK');
    assert.match(errorOf(await stuck), /^ERR Script killed by user/);
    assert.equal(await other.call('CONFIG', 'SET', 'lua-time-limit', '5000'), 'OK');
    cb.close();
    other.close();
  });

  it('a script on b that wrote: SCRIPT KILL on a answers UNKILLABLE', async () => {
    const [ca, cb] = await Promise.all([RawClient.connect(a.port), RawClient.connect(b.port)]);
    let r = '';
    // a KILL that reaches the script before its SET stops it (OK, rightly): start another
    for (let i = 0; i < 20 && !r.startsWith('UNKILLABLE'); i++) {
      const writer = cb.call('EVAL', "redis.call('set', KEYS[1], '1') while true do end", '1', 'kill:w');
      r = await untilSeen(ca, 'SCRIPT', 'KILL');
      if (r === 'OK') assert.match(errorOf(await writer), /^ERR Script killed by user with SCRIPT KILL/);
      // it runs until b stops (after()), as a Redis server's would until SHUTDOWN NOSAVE
      else void writer.catch(() => undefined);
    }
    assert.equal(r, 'UNKILLABLE Sorry the script already executed write commands against the dataset. ' +
      'You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.');
    ca.close();
    cb.close();
  });
});
