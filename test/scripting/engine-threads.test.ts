// The engine off the event loop: a runaway script is stopped by SCRIPT KILL sent from another
// worker thread while this thread's timers keep firing; a script that wrote is UNKILLABLE;
// the memory cap stops a growing script; several worker threads run scripts at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { scriptEngine, ScriptHost } from '../../core/engine/scripting/engine';

const okHost: ScriptHost = { call: () => Buffer.from('+OK\r\n') };

/**
 * Each test fails after 2 minutes instead of hanging (a loaded full run once sat 18–20 min in this
 * file); its t.after still kills what it left running, so the process can exit.
 */
const kBounded = { timeout: 120_000 };

/** Polls cond every 5 ms; throws after 60 s (a call that never shows up fails the test). */
async function until(cond: () => boolean): Promise<void> {
  const end = Date.now() + 60_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met within 60 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

function runWorker(code: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData: { engine: require.resolve('../../core/engine/scripting/engine') } });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

test('a runaway script is killed from another worker thread; the event loop keeps serving meanwhile', kBounded, async (t) => {
  const engine = scriptEngine();
  assert.equal(engine.kill('script').toString(), '-NOTBUSY No scripts in execution right now.\r\n');
  const reply = engine.eval({ body: 'local i = 0 while true do i = i + 1 end' }, okHost);
  let ticks = 0;
  const timer = setInterval(() => { ticks++; }, 5);
  // an assertion failing below must not leave the runaway spinning: the test process would never exit
  t.after(() => { engine.kill('script'); clearInterval(timer); });
  await until(() => engine.running().length > 0);
  // counted from here, while the script spins: a blocked loop would fire none; a loaded machine
  // (load average 20 on 2 cores) fires ~3 of the 20 due in 100 ms
  ticks = 0;
  await new Promise((r) => setTimeout(r, 100));
  assert.ok(ticks >= 2, `timers fired ${ticks} times while the script ran`);
  assert.equal(engine.kill('function').toString(),
    '-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n');
  const killed = await runWorker(`
    const { parentPort, workerData } = require('node:worker_threads');
    const { scriptEngine } = require(workerData.engine);
    parentPort.postMessage(scriptEngine().kill('script').toString());`);
  assert.equal(killed, '+OK\r\n');
  const got = (await reply).toString();
  clearInterval(timer);
  assert.match(got, /^-ERR Script killed by user with SCRIPT KILL\.\.\. script: [0-9a-f]{40}, on @user_script:1\.\r\n$/);
});

test('pcall cannot swallow a kill', kBounded, async (t) => {
  const engine = scriptEngine();
  t.after(() => { engine.kill('script'); });
  const reply = engine.eval({ body: 'while true do pcall(function() while true do end end) end' }, okHost);
  await until(() => engine.running().length > 0);
  assert.equal(engine.kill('script').toString(), '+OK\r\n');
  assert.match((await reply).toString(), /^-ERR Script killed by user with SCRIPT KILL/);
});

test('a script that wrote is UNKILLABLE; FUNCTION KILL stops a function', kBounded, async (t) => {
  const engine = scriptEngine();
  // the written script runs until the test lets it stop (a fixed loop of 5e7 could end before the
  // function below started on a loaded machine, and the wait for two running calls never ended)
  let stop = false;
  t.after(() => { stop = true; engine.kill('function'); });
  const host: ScriptHost = {
    call: (argv, _resp, run) => {
      if (argv[0].toString() === 'get') return Buffer.from(stop ? '$4\r\nstop\r\n' : '$-1\r\n');
      run.markWritten();
      return Buffer.from('+OK\r\n');
    },
  };
  const loop = engine.eval({ body: "redis.call('set','k','v') local n = 0 while not redis.call('get','stop') do n = n + 1 end return 'stopped'" }, host);
  // running() lists the script before its redis.call has reached the host: wait for the write
  await until(() => engine.running()[0]?.written === true);
  assert.equal(engine.kill('script').toString().slice(0, 12), '-UNKILLABLE ');
  // meanwhile FUNCTION KILL still stops a function running beside it
  await engine.loadLibrary("#!lua name=spin\nredis.register_function('spin', function() while true do end end)", true);
  const fn = engine.fcall({ fn: 'spin' }, okHost);
  await until(() => engine.running().length >= 2);
  assert.equal(engine.kill('function').toString(), '+OK\r\n');
  assert.equal((await fn).toString(), '-ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:2.\r\n');
  // the written script cannot be killed: it ends when told to
  assert.equal(engine.running().length, 1);
  stop = true;
  assert.equal((await loop).toString(), '$7\r\nstopped\r\n');
});

test('a KILL that lands while the first write is on its way to the host wins: the write is refused, the script ends killed', kBounded, async () => {
  const engine = scriptEngine();
  let marked: boolean | undefined;
  let kill = '';
  const host: ScriptHost = {
    call: (_argv, _resp, run) => {
      // the KILL reaches the running list before the host marks the call written
      kill = engine.kill('script').toString();
      marked = run.markWritten();
      return marked ? Buffer.from('+OK\r\n') : Buffer.from('-ERR refused\r\n');
    },
  };
  // pcall cannot catch its way past the refused write either
  const reply = await engine.eval({ body: "pcall(redis.call, 'set', 'w', '1') pcall(redis.call, 'set', 'w', '2') while true do end" }, host);
  assert.equal(kill, '+OK\r\n');
  assert.equal(marked, false, 'a call killed first is not marked written (the host must not write)');
  assert.match(reply.toString(), /^-ERR Script killed by user with SCRIPT KILL/);
  assert.equal(engine.running().length, 0);
});

test('FUNCTION LOAD stops a library that runs longer than 500 ms', kBounded, async () => {
  const engine = scriptEngine();
  assert.equal((await engine.loadLibrary('#!lua name=slow\nwhile true do end')).toString(),
    '-ERR Error registering functions: ERR FUNCTION LOAD timeout\r\n');
});

test('the per-state memory cap stops a growing script, and the state stays usable', kBounded, async () => {
  const engine = scriptEngine();
  const got = (await engine.eval({ body: "local t = {} for i = 1, 1e9 do t[i] = i end" }, okHost)).toString();
  assert.match(got, /^-ERR Error running script [0-9a-f]{40}, not enough memory\r\n$/);
  assert.equal((await engine.eval({ body: 'return 42' }, okHost)).toString(), ':42\r\n');
});

test('several worker threads run scripts at once, each reply going back to its own thread', kBounded, async () => {
  const results = await Promise.all([1, 2, 3, 4].map((n) => runWorker(`
    const { parentPort, workerData } = require('node:worker_threads');
    const { scriptEngine } = require(workerData.engine);
    const e = scriptEngine();
    const host = { call: (argv) => Promise.resolve(Buffer.from(':' + (Number(argv[1].toString()) + ${n * 1000}) + '\\r\\n')) };
    Promise.all(Array.from({ length: 50 }, (_, i) => e.eval({ body: "local s = 0 for i = 1, 10 do s = s + redis.call('echo', ARGV[1]) end return s", args: [String(i)] }, host)))
      .then((r) => parentPort.postMessage(r.map((b) => b.toString()).join('')));`)));
  results.forEach((r, w) => {
    const want = Array.from({ length: 50 }, (_, i) => `:${10 * (i + (w + 1) * 1000)}\r\n`).join('');
    assert.equal(r, want);
  });
});

test('a worker thread that exits mid-script does not take the process down', kBounded, async () => {
  const r = await runWorker(`
    const { parentPort, workerData } = require('node:worker_threads');
    const { scriptEngine } = require(workerData.engine);
    const e = scriptEngine();
    e.eval({ body: 'while true do end' }, { call: () => Buffer.from('+OK\\r\\n') });
    e.eval({ body: "return redis.call('ping')" }, { call: () => new Promise(() => {}) });
    setTimeout(() => { parentPort.postMessage('bye'); process.exit(0); }, 50);`);
  assert.equal(r, 'bye');
  const engine = scriptEngine();
  for (let i = 0; i < 100 && engine.running().length > 0; i++) await new Promise((res) => setTimeout(res, 10));
  assert.equal(engine.running().length, 0);
  assert.equal((await engine.eval({ body: 'return 1' }, okHost)).toString(), ':1\r\n');
});
