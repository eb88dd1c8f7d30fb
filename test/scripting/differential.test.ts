// The Lua engine against redis-server 7.0: every script of cases.ts runs once with redis-server's
// own EVAL and once in the engine with a host that forwards each redis.call to the same
// redis-server; replies must be byte-identical, in RESP2 and RESP3. Libraries likewise:
// FUNCTION LOAD replies and FCALL replies.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, RedisServer } from '../differential/oracle';
import { FrameConn, show } from '../differential/resp-frames';
import { encode } from '../e2e/resp-client';
import { scriptEngine } from '../../core/engine/scripting/engine';
import { RedisForwardHost } from './redis-host';
import { kEvalCases, kFcallLibrary, kFcalls, kLoadCases } from './cases';

let redis: RedisServer;
let host: RedisForwardHost;
const conns: Partial<Record<2 | 3, FrameConn>> = {};

async function oracle(proto: 2 | 3, ...args: string[]): Promise<Buffer> {
  const c = conns[proto]!;
  c.write(encode(...args));
  const r = await c.read(1);
  return r.frames[0];
}

before(async () => {
  redis = await startRedis();
  host = await RedisForwardHost.connect(redis.port);
  for (const p of [2, 3] as const) {
    conns[p] = await FrameConn.connect(redis.port);
    if (p === 3) await oracle(3, 'HELLO', '3');
  }
});

after(async () => {
  host.close();
  conns[2]?.close();
  conns[3]?.close();
  await redis.stop();
});

for (const proto of [2, 3] as const) {
  test(`EVAL: ${kEvalCases.length} scripts give redis-server's reply bytes (RESP${proto})`, async () => {
    const engine = scriptEngine();
    const diffs: string[] = [];
    for (const body of kEvalCases) {
      const want = await oracle(proto, 'EVAL', body, '0');
      const got = await engine.eval({ body, proto }, host);
      if (!got.equals(want)) diffs.push(`${JSON.stringify(body)}\n  redis:  ${show(want)}\n  engine: ${show(got)}`);
    }
    assert.equal(diffs.length, 0, `${diffs.length} differences:\n${diffs.join('\n')}`);
  });
}

test('KEYS and ARGV reach the script as binary-safe strings', async () => {
  const engine = scriptEngine();
  const body = 'return {#KEYS, #ARGV, KEYS[1], ARGV[2], redis.call("set", KEYS[1], ARGV[1]), redis.call("get", KEYS[1])}';
  const keys = [Buffer.from([0, 255, 10, 13])];
  const args = [Buffer.from('v\r\nv'), 'two'];
  const got = await engine.eval({ body, keys, args }, host);
  const c = conns[2]!;
  c.write(Buffer.concat([Buffer.from(`*6\r\n$4\r\nEVAL\r\n$${Buffer.byteLength(body)}\r\n${body}\r\n$1\r\n1\r\n$4\r\n`), keys[0],
    Buffer.from('\r\n$4\r\nv\r\nv\r\n$3\r\ntwo\r\n')]));
  const wantBytes = (await c.read(1)).frames[0];
  assert.equal(show(got), show(wantBytes));
});

test('EVALSHA runs a body the engine has seen, NOSCRIPT otherwise; SCRIPT LOAD checks syntax like Redis', async () => {
  const engine = scriptEngine();
  const loaded = engine.loadScript('return ARGV[1]');
  assert.ok('sha' in loaded);
  const sha = (loaded as { sha: string }).sha;
  assert.equal(sha, engine.sha1hex('return ARGV[1]'));
  assert.equal((await engine.eval({ sha: sha.toUpperCase(), args: ['x'] }, host)).toString(), '$1\r\nx\r\n');
  assert.equal((await engine.eval({ sha: 'f'.repeat(40) }, host)).toString(), '-NOSCRIPT No matching script. Please use EVAL.\r\n');
  const bad = engine.loadScript('return +');
  const want = await oracle(2, 'SCRIPT', 'LOAD', 'return +');
  assert.equal(`-${(bad as { error: string }).error}\r\n`, want.toString());
  const flagged = engine.loadScript('#!lua flags=no-writes,allow-stale\nreturn 1');
  assert.deepEqual((flagged as { flags: string[] }).flags, ['no-writes', 'allow-stale']);
  assert.deepEqual(engine.scriptFlags(sha), ['eval-compat']);
});

test(`FUNCTION LOAD: ${kLoadCases.length} libraries give redis-server's replies`, async () => {
  const engine = scriptEngine();
  const diffs: string[] = [];
  for (const code of kLoadCases) {
    await oracle(2, 'FUNCTION', 'FLUSH');
    engine.flushLibraries();
    const want = await oracle(2, 'FUNCTION', 'LOAD', code);
    const got = await engine.loadLibrary(code);
    if (!got.equals(want)) diffs.push(`${JSON.stringify(code)}\n  redis:  ${show(want)}\n  engine: ${show(got)}`);
  }
  // name clashes across libraries and REPLACE
  await oracle(2, 'FUNCTION', 'FLUSH');
  engine.flushLibraries();
  const a = "#!lua name=a\nredis.register_function('fa', function() return 1 end)";
  const b = "#!lua name=b\nredis.register_function('fa', function() return 2 end)";
  for (const [args, run] of [
    [['FUNCTION', 'LOAD', a], () => engine.loadLibrary(a)],
    [['FUNCTION', 'LOAD', a], () => engine.loadLibrary(a)],
    [['FUNCTION', 'LOAD', 'REPLACE', a], () => engine.loadLibrary(a, true)],
    [['FUNCTION', 'LOAD', b], () => engine.loadLibrary(b)],
  ] as [string[], () => Promise<Buffer>][]) {
    const want = await oracle(2, ...args);
    const got = await run();
    if (!got.equals(want)) diffs.push(`${args.join(' ')}\n  redis:  ${show(want)}\n  engine: ${show(got)}`);
  }
  assert.equal(diffs.length, 0, `${diffs.length} differences:\n${diffs.join('\n')}`);
  assert.deepEqual(engine.listLibraries().map((l) => [l.name, l.functions.map((f) => f.name)]), [['a', ['fa']]]);
});

for (const proto of [2, 3] as const) {
  test(`FCALL: replies and errors of a library's functions (RESP${proto})`, async () => {
    const engine = scriptEngine();
    await oracle(proto, 'FUNCTION', 'FLUSH');
    engine.flushLibraries();
    assert.equal((await oracle(proto, 'FUNCTION', 'LOAD', kFcallLibrary)).toString(), (await engine.loadLibrary(kFcallLibrary)).toString());
    await oracle(proto, 'HSET', 'hh', 'f', 'v');
    const diffs: string[] = [];
    for (const [fn, n, ...rest] of kFcalls) {
      const want = await oracle(proto, 'FCALL', fn, n, ...rest);
      const got = await engine.fcall({ fn, keys: rest.slice(0, +n), args: rest.slice(+n), proto }, host);
      if (!got.equals(want)) diffs.push(`FCALL ${fn}\n  redis:  ${show(want)}\n  engine: ${show(got)}`);
    }
    assert.equal(diffs.length, 0, `${diffs.length} differences:\n${diffs.join('\n')}`);
    assert.deepEqual(engine.functionFlags('ro'), ['no-writes']);
    assert.equal(engine.functionFlags('nofn'), null);
  });
}

test('redis.log lines reach the host with their level', async () => {
  const engine = scriptEngine();
  host.logs = [];
  await engine.eval({ body: "redis.log(redis.LOG_NOTICE, 'a', 1, {}, 'b') return 1" }, host);
  assert.deepEqual(host.logs, [[2, 'a 1 b']]);
});
