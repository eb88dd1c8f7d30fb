/**
 * Differential: the limits Redis puts on a client that has not authenticated (at most 10
 * arguments of at most 16384 bytes), against redis-server 7 byte for byte, with requirepass set
 * at runtime on both. Redis judges them when it parses each request, after the previous one ran
 * (authRequired(): a password is set and the client has not authenticated), so AUTH or HELLO AUTH
 * followed in the same write by a large command works; RESET, a wrong password and a password
 * set again with CONFIG SET bring them back. A reply that is a protocol error must be followed by
 * the server closing the connection on both.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { encode } from '../e2e/resp-client';
import { Oracle, showCmd, type Cmd } from './oracle';
import { FrameConn, show } from './resp-frames';

/** one write on one named connection (opened at its first step), all its commands in that write */
interface Step { conn: string; cmds: Cmd[] }

const kPass = 's3cret';
const keys = (n: number) => Array.from({ length: n }, (_, i) => `key:${i}`);
const kBig = 'v'.repeat(20 * 1024);
const kSmallLimit = 'x'.repeat(16384);

const kSteps: Step[] = [
  // before AUTH: both limits, and exactly at them a NOAUTH
  { conn: 'limits1', cmds: [['MGET', ...keys(10)]] },
  { conn: 'limits2', cmds: [['ECHO', `${kSmallLimit}y`]] },
  { conn: 'limits3', cmds: [['ECHO', kSmallLimit], ['MGET', ...keys(9)]] },
  // AUTH and a 21-argument MGET in one write, then large values and a 13-argument MSET
  { conn: 'auth', cmds: [['AUTH', kPass], ['MGET', ...keys(20)]] },
  { conn: 'auth', cmds: [['SET', 'big', kBig], ['GET', 'big'], ['MSET', 'a', '1', 'b', '2', 'c', '3', 'd', '4', 'e', '5', 'f', '6']] },
  { conn: 'auth', cmds: [['MGET', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'big']] },
  { conn: 'authUser', cmds: [['AUTH', 'default', kPass], ['ECHO', kBig]] },
  // a wrong password keeps them
  { conn: 'wrong', cmds: [['AUTH', 'nope'], ['MGET', ...keys(10)]] },
  { conn: 'wrongBulk', cmds: [['AUTH', 'default', 'nope'], ['ECHO', kBig]] },
  // RESET brings them back while a password is set
  { conn: 'reset', cmds: [['AUTH', kPass], ['RESET'], ['MGET', ...keys(10)]] },
  // HELLO 3 AUTH lifts them for the rest of the write; a failed HELLO AUTH does not
  { conn: 'hello', cmds: [['HELLO', '3', 'AUTH', 'default', kPass], ['MGET', ...keys(20)], ['ECHO', kBig]] },
  { conn: 'helloWrong', cmds: [['HELLO', '3', 'AUTH', 'default', 'nope'], ['MGET', ...keys(10)]] },
  // runtime: removing the password lifts them for a client that never authenticated (but HELLO
  // still wants AUTH: it reads c->authenticated), setting it again brings them back
  { conn: 'never', cmds: [['PING']] },
  { conn: 'admin', cmds: [['AUTH', kPass], ['CONFIG', 'SET', 'requirepass', '']] },
  { conn: 'never', cmds: [['PING'], ['HELLO', '3'], ['MGET', ...keys(20)], ['ECHO', kBig]] },
  { conn: 'noPassYet', cmds: [['PING']] },
  { conn: 'admin', cmds: [['CONFIG', 'SET', 'requirepass', kPass]] },
  // a client that connected while no password was set stays authenticated, until RESET
  { conn: 'noPassYet', cmds: [['MGET', ...keys(20)], ['RESET'], ['ECHO', kBig]] },
  { conn: 'never', cmds: [['PING'], ['MGET', ...keys(10)]] },
];

/** The replies to each step, with `<closed>` after a protocol error once the server closed. */
async function runSteps(port: number): Promise<string[][]> {
  const conns = new Map<string, FrameConn>();
  const out: string[][] = [];
  try {
    const setup = await FrameConn.connect(port);
    setup.write(encode('CONFIG', 'SET', 'requirepass', kPass));
    const r = await setup.read(1);
    setup.close();
    assert.equal(r.frames[0]?.toString(), '+OK\r\n');
    for (const step of kSteps) {
      let c = conns.get(step.conn);
      if (c === undefined) conns.set(step.conn, c = await FrameConn.connect(port));
      c.write(Buffer.concat(step.cmds.map((cmd) => encode(...cmd))));
      const got = await c.read(step.cmds.length, 10000);
      const replies = got.frames.map((f, i) =>
        // HELLO's map names the server and the client id, its NOAUTH text differs between Redis
        // releases: its type and error code are what must agree
        String(step.cmds[i][0]).toUpperCase() === 'HELLO' ? `HELLO ${f.toString('latin1').split(/[ \r]/)[0]}` : show(f, 80));
      if (got.frames.some((f) => f.toString('latin1', 0, 20) === '-ERR Protocol error')) {
        const rest = got.stopped ?? (await c.read(1, 10000)).stopped;
        replies.push(`<${rest ?? 'still open'}>`);
      } else if (got.stopped) {
        replies.push(`<${got.stopped}>`);
      }
      out.push(replies);
    }
  } finally {
    for (const c of conns.values()) c.close();
    // leave the server as it was for whoever shares it
    const reset = await FrameConn.connect(port);
    reset.write(Buffer.concat([encode('AUTH', kPass), encode('CONFIG', 'SET', 'requirepass', '')]));
    await reset.read(2);
    reset.close();
  }
  return out;
}

describe('differential: unauthenticated protocol limits', () => {
  let oracle: Oracle;
  // one worker: CONFIG SET reaches another worker's clients through the primary, a moment later
  before(async () => { oracle = await Oracle.start(['--workers', '1', '--storage-mode', 'unlogged']); });
  after(async () => { await oracle?.stop(); });

  it('AUTH, HELLO AUTH, RESET, a wrong password and CONFIG SET requirepass give Redis\'s replies and closes', async () => {
    const expected = await runSteps(oracle.redis.port);
    const actual = await runSteps(oracle.postresp.port);
    const diffs: string[] = [];
    kSteps.forEach((step, i) => {
      const e = expected[i].join(' | ');
      const a = actual[i].join(' | ');
      if (e !== a) {
        diffs.push(`step ${i} on '${step.conn}': ${step.cmds.map((c) => showCmd(c)).join(' ; ')}`,
          `  redis-server: ${e}`, `  postresp:     ${a}`);
      }
    });
    assert.equal(diffs.length, 0, diffs.join('\n'));
    // the run must have exercised both sides of the limit
    assert.ok(expected.flat().some((r) => r.includes('unauthenticated multibulk length')));
    assert.ok(expected.flat().some((r) => r.includes('unauthenticated bulk length')));
    assert.ok(expected[3].some((r) => r.startsWith('*20')));
  });
});
