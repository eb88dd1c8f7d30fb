// End to end against a redis-server this file starts on a free port (no persistence).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as hdr from 'hdr-histogram-js';
import { kCsvHeader } from './report';
import { findOnPath, freePort } from './servers';
import { runCli, startTestRedis, type TestRedis } from './test-support';

let redis: TestRedis;
let port: string;
const benchmarkBin = findOnPath('valkey-benchmark', 'redis-benchmark');

before(async () => {
  redis = await startTestRedis();
  port = String(redis.port);
});

after(async () => {
  await redis.close();
});

const quietLine = /^(\S.*): (\d+\.\d\d) requests per second, p50=(\d+\.\d\d\d) msec$/;

test('CSV header and rows are the same as redis-benchmark --csv', { skip: benchmarkBin === null && 'no redis-benchmark on PATH' }, async () => {
  const theirs = execFileSync(benchmarkBin!, ['-p', port, '-n', '200', '-c', '2', '-t', 'set,get', '--csv'], { encoding: 'utf8' }).split('\n');
  const ours = await runCli(['-p', port, '-n', '200', '-c', '2', '-t', 'set,get', '--csv']);
  assert.equal(ours.code, 0, ours.err);
  const lines = ours.out.split('\n');
  assert.equal(theirs[0], kCsvHeader);
  assert.equal(lines[0], theirs[0]);
  const row = /^"([^"]+)","\d+\.\d\d","\d+\.\d\d\d","\d+\.\d\d\d","\d+\.\d\d\d","\d+\.\d\d\d","\d+\.\d\d\d","\d+\.\d\d\d"$/;
  assert.deepEqual(lines.slice(1, 3).map((l) => row.exec(l)?.[1]), ['SET', 'GET']);
  assert.deepEqual(theirs.slice(1, 3).map((l) => row.exec(l)?.[1]), ['SET', 'GET']);
  assert.equal(lines.length, 4); // header, 2 rows, final newline; no blank line in CSV mode
});

test('default test titles are redis-benchmark\'s, in its order', { skip: benchmarkBin === null && 'no redis-benchmark on PATH' }, async () => {
  const titles = (csv: string): string[] => csv.split('\n').slice(1).filter((l) => l !== '').map((l) => l.split('","')[0].slice(1));
  const theirs = execFileSync(benchmarkBin!, ['-p', port, '-n', '50', '-c', '1', '--csv'], { encoding: 'utf8' });
  const ours = await runCli(['-p', port, '-n', '50', '-c', '1', '--csv']);
  assert.equal(ours.code, 0, ours.err);
  assert.deepEqual(titles(ours.out), titles(theirs));
});

test('-q prints valkey\'s one line per test', async () => {
  const r = await runCli(['-p', port, '-n', '2000', '-t', 'set,get', '-q', '-r', '1000']);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n');
  assert.match(lines[0], quietLine);
  assert.equal(quietLine.exec(lines[0])?.[1], 'SET');
  assert.equal(quietLine.exec(lines[1])?.[1], 'GET');
  assert.deepEqual(lines.slice(2), ['', '']); // valkey ends the suite with an empty line
});

test('full output: valkey\'s summary block plus p99.9 and a verdict', async () => {
  const r = await runCli(['-p', port, '-n', '1000', '-c', '5', '-t', 'incr']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^====== INCR ======\n  1000 requests completed in \d+\.\d\d seconds\n  5 parallel clients\n  3 bytes payload\n  keep alive: 1\n  host configuration "save": \n  host configuration "appendonly": no\n  multi-thread: no\n/);
  assert.match(r.out, /Summary:\n  throughput summary: \d+\.\d\d requests per second\n  latency summary \(msec\):\n {10}avg {7}min {7}p50 {7}p95 {7}p99 {7}max\n( +\d+\.\d{3}){6}\n  p99\.9 \(msec\): \d+\.\d{3}\n  errors: 0\nVerdict: OK: 1000 replies, no errors\n/);
});

test('SLO: pass exits 0, a missed objective exits 1', async () => {
  const pass = await runCli(['-p', port, '-n', '1000', '-t', 'ping_mbulk', '--slo', 'p50<10s,p99<10s,p999<20s']);
  assert.equal(pass.code, 0, pass.err);
  assert.match(pass.out, /SLO p50<10s: PASS \(p50 = \d+\.\d{3} msec\)/);
  assert.match(pass.out, /Verdict: OK: 1000 replies, no errors, all 3 SLO objectives met/);
  const fail = await runCli(['-p', port, '-n', '1000', '-t', 'ping_mbulk', '--slo', 'p50<1us,p99<10s']);
  assert.equal(fail.code, 1);
  assert.match(fail.out, /SLO p50<1us: FAIL/);
  assert.match(fail.out, /SLO p99<10s: PASS/);
  assert.match(fail.out, /Verdict: FAILED: SLO missed: p50<1us/);
  const quiet = await runCli(['-p', port, '-n', '500', '-t', 'ping_mbulk', '-q', '--slo', 'p50<1us']);
  assert.equal(quiet.code, 1);
  assert.match(quiet.out, /^PING_MBULK: .* requests per second.*\nPING_MBULK: SLO p50<1us missed\n/);
});

test('--duration, --warmup, -3, --dbnum, --ratio, --data-size-range, key patterns', async () => {
  const r = await runCli(['-p', port, '-c', '4', '--duration', '0.6', '--warmup', '0.3', '-t', 'set', '-q', '-3', '--dbnum', '5', '-r', '100', '--key-pattern', 'zipf']);
  assert.equal(r.code, 0, r.err);
  const m = quietLine.exec(r.out.split('\n')[0]);
  assert.ok(m !== null && Number(m[2]) > 0, r.out);
  const keys = execFileSync('redis-cli', ['-p', port, '-n', '5', 'dbsize'], { encoding: 'utf8' });
  assert.ok(Number(keys) > 0 && Number(keys) <= 100, keys);
  const mixed = await runCli(['-p', port, '-n', '2000', '-c', '4', '--ratio', '1:3', '-r', '50', '--data-size-range', '1-300', '-q']);
  assert.equal(mixed.code, 0, mixed.err);
  assert.match(mixed.out, /^SET:GET 1:3: \d+\.\d\d requests per second/);
});

test('--json, --html and --hdr files', async () => {
  const dir = redis.dir;
  const files = { json: join(dir, 'r.json'), html: join(dir, 'r.html'), hdr: join(dir, 'r.hdr') };
  const r = await runCli(['-p', port, '-n', '1000', '-t', 'set,get', '-q', '--json', files.json, '--html', files.html, '--hdr', files.hdr]);
  assert.equal(r.code, 0, r.err);
  const doc = JSON.parse(readFileSync(files.json, 'utf8')) as { tests: Array<{ test: string; requests: number; histogram: string; latencyMs: { p99: number } }> };
  assert.deepEqual(doc.tests.map((t) => t.test), ['SET', 'GET']);
  assert.equal(doc.tests[0].requests, 1000);
  assert.equal(hdr.decodeFromCompressedBase64(doc.tests[0].histogram).totalCount, 1000);
  const html = readFileSync(files.html, 'utf8');
  assert.match(html, /<svg/);
  assert.doesNotMatch(html, /<script src=|https?:\/\/(?!www\.w3\.org)/);
  const log = readFileSync(files.hdr, 'utf8');
  const reader = new hdr.HistogramLogReader(log);
  const first = reader.nextIntervalHistogram();
  assert.equal(first?.totalCount, 1000);
  assert.equal(first?.tag, 'SET');
});

test('error replies (NOAUTH) are counted and the run FAILS, not reported as fast', async () => {
  const locked = await startTestRedis(['--requirepass', 'sekret']);
  try {
    const p = String(locked.port);
    const r = await runCli(['-p', p, '-n', '2000', '-t', 'set', '-q']);
    assert.equal(r.code, 1);
    assert.match(r.out, /^SET: FAILED, 2000 of 2000 replies were errors \(first: NOAUTH Authentication required\.\)/);
    assert.doesNotMatch(r.out, /requests per second/);
    const full = await runCli(['-p', p, '-n', '500', '-t', 'get']);
    assert.equal(full.code, 1);
    assert.match(full.out, /errors: 500 \(first: NOAUTH Authentication required\.\)\nVerdict: FAILED: 500 of 500 replies were errors/);
    const csv = await runCli(['-p', p, '-n', '500', '-t', 'get', '--csv']);
    assert.equal(csv.code, 1);
    assert.equal(csv.out, `${kCsvHeader}\n`);
    assert.match(csv.err, /GET: FAILED/);
    const ok = await runCli(['-p', p, '-n', '500', '-t', 'get', '-q', '-a', 'sekret']);
    assert.equal(ok.code, 0, ok.out + ok.err);
    const wrong = await runCli(['-p', p, '-n', '500', '-t', 'get', '-q', '-a', 'nope']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.out, /GET: FAILED, Node 127\.0\.0\.1:\d+ replied with error:\nWRONGPASS/);
  } finally {
    await locked.close();
  }
});

test('nothing listening and --no-autostart: refused like valkey-benchmark', async () => {
  const free = String(await freePort());
  const r = await runCli(['-p', free, '-n', '10', '-q', '--no-autostart']);
  assert.equal(r.code, 1);
  assert.match(r.err, /Could not connect to server at 127\.0\.0\.1:\d+: Connection refused/);
});

test('nothing listening: the harness starts PostRESP on port 0, runs, stops it', async () => {
  // The real server needs its embedded Postgres; a stub that keeps the same contract (--port 0,
  // the Ready line, SIGTERM) stands in for it.
  const saved = process.env.POSTRESP_ENTRY;
  process.env.POSTRESP_ENTRY = join(__dirname, 'fixtures', 'resp-stub.js');
  try {
    const free = String(await freePort());
    const r = await runCli(['-p', free, '-n', '500', '-t', 'ping_mbulk', '-q', '--storage-mode', 'unlogged']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, new RegExp(`Nothing answers at 127\\.0\\.0\\.1:${free}: starting PostRESP`));
    assert.match(r.err, /PostRESP ready at 127\.0\.0\.1:\d+ \(node \S+resp-stub\.js --port 0 --bind 127\.0\.0\.1 --storage-mode unlogged\)/);
    assert.match(r.err, /Stopping PostRESP/);
    assert.match(r.out, /^PING_MBULK: \d+\.\d\d requests per second/);
  } finally {
    if (saved === undefined) delete process.env.POSTRESP_ENTRY;
    else process.env.POSTRESP_ENTRY = saved;
  }
});

test('SIGTERM mid-run: the started PostRESP is stopped and no further test starts', async () => {
  const { spawn } = await import('node:child_process');
  const free = String(await freePort());
  // ping_mbulk runs long (-n 50M); set after it must not start once the signal arrived
  const child = spawn(process.execPath, [join(__dirname, 'cli.js'), '-p', free, '-n', '50000000', '-t', 'ping_mbulk,set', '-q'],
    { env: { ...process.env, POSTRESP_ENTRY: join(__dirname, 'fixtures', 'resp-stub.js') }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  for (let i = 0; i < 200 && !/PostRESP ready/.test(err); i++) await new Promise((r) => setTimeout(r, 50));
  assert.match(err, /PostRESP ready/);
  // the CONFIG probe comes right before the first test: under load (15 on 2 cores) a fixed
  // 300 ms after 'ready' was once before it, and nothing had started to interrupt
  for (let i = 0; i < 200 && !/CONFIG/.test(err); i++) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 300)); // ping_mbulk is running
  child.kill('SIGTERM');
  assert.equal(await exited, 143);
  assert.match(err, /Stopping PostRESP/);
  assert.match(err, /Interrupted: 1 of 2 tests not run/);
  assert.doesNotMatch(out, /^SET/m);
});
