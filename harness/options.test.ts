import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kDefaults, parseArgs, threadCount } from './options';
import { selectTests } from './workloads';

test('defaults are valkey-benchmark\'s', () => {
  const o = parseArgs([]);
  assert.equal(o.host, '127.0.0.1');
  assert.equal(o.port, 6379);
  assert.equal(o.socket, null);
  assert.equal(o.clients, 50);
  assert.equal(o.requests, 100000);
  assert.equal(o.dataSize, 3);
  assert.equal(o.pipeline, 1);
  assert.equal(o.keepalive, 1);
  assert.equal(o.dbnum, 0);
  assert.equal(o.precision, 3);
  assert.equal(o.randomKeys, false);
  assert.equal(o.quiet, false);
  assert.equal(o.csv, false);
  assert.equal(o.loop, false);
  assert.equal(o.resp3, false);
  assert.equal(o.rps, 0);
  assert.deepEqual(o, { ...kDefaults, slo: [], command: [] });
});

test('default test list is the one redis-benchmark 7 / valkey-benchmark run', () => {
  const titles = selectTests(parseArgs([])).map((t) => t.title);
  assert.deepEqual(titles, [
    'PING_INLINE', 'PING_MBULK', 'SET', 'GET', 'INCR', 'LPUSH', 'RPUSH', 'LPOP', 'RPOP', 'SADD', 'HSET', 'SPOP', 'ZADD', 'ZPOPMIN',
    'LPUSH (needed to benchmark LRANGE)', 'LRANGE_100 (first 100 elements)', 'LRANGE_300 (first 300 elements)',
    'LRANGE_500 (first 500 elements)', 'LRANGE_600 (first 600 elements)', 'MSET (10 keys)',
  ]);
});

test('every valkey flag parses', () => {
  const o = parseArgs(['-h', '10.0.0.1', '-p', '7000', '-a', 'pw', '--user', 'u', '-c', '8', '-n', '5000', '-d', '1024', '-P', '16',
    '-r', '100000', '-t', 'SET,get', '-q', '-l', '--csv', '--threads', '3', '--seed', '42', '--precision', '4', '--dbnum', '2', '-3']);
  assert.equal(o.host, '10.0.0.1');
  assert.equal(o.port, 7000);
  assert.equal(o.password, 'pw');
  assert.equal(o.user, 'u');
  assert.equal(o.clients, 8);
  assert.equal(o.requests, 5000);
  assert.equal(o.dataSize, 1024);
  assert.equal(o.pipeline, 16);
  assert.equal(o.keyspace, 100000);
  assert.equal(o.randomKeys, true);
  assert.deepEqual(o.tests, ['set', 'get']);
  assert.ok(o.quiet && o.loop && o.csv && o.resp3);
  assert.equal(o.threads, 3);
  assert.equal(o.seed, 42);
  assert.equal(o.precision, 4);
  assert.equal(o.dbnum, 2);
  assert.equal(parseArgs(['-s', '/tmp/x.sock']).socket, '/tmp/x.sock');
});

test('our flags parse', () => {
  const o = parseArgs(['--duration', '10', '--warmup', '2', '--ratio', '1:10', '--key-pattern', 'zipf', '--data-size-range', '16-4096',
    '--json', 'a.json', '--html', 'a.html', '--hdr', 'a.hdr', '--rps', '20000', '--slo', 'p50<1ms,p99<5ms', '--storage-mode', 'logged', '--no-autostart']);
  assert.equal(o.duration, 10);
  assert.equal(o.warmup, 2);
  assert.deepEqual(o.ratio, { set: 1, get: 10 });
  assert.equal(o.keyPattern, 'zipf');
  assert.deepEqual(o.dataSizeRange, [16, 4096]);
  assert.equal(o.json, 'a.json');
  assert.equal(o.html, 'a.html');
  assert.equal(o.hdr, 'a.hdr');
  assert.equal(o.rps, 20000);
  assert.equal(o.slo.length, 2);
  assert.equal(o.storageMode, 'logged');
  assert.equal(o.autostart, false);
  assert.equal(selectTests(o)[0].title, 'SET:GET 1:10');
});

test('valkey clamps rather than refuses -d and -P', () => {
  assert.equal(parseArgs(['-d', '0']).dataSize, 1);
  assert.equal(parseArgs(['-P', '0']).pipeline, 1);
  assert.equal(parseArgs(['-r', '-5']).keyspace, 0);
});

test('bad input is refused with a clear message', () => {
  assert.throws(() => parseArgs(['-n', '10', '--duration', '5']), /mutually exclusive/);
  assert.throws(() => parseArgs(['--duration', '5', '-n', '10']), /mutually exclusive/);
  assert.throws(() => parseArgs(['-c']), /option argument missing/);
  assert.throws(() => parseArgs(['-c', 'many']), /integer/);
  assert.throws(() => parseArgs(['--bogus']), /Invalid option "--bogus"/);
  assert.throws(() => parseArgs(['--key-pattern', 'pareto']), /uniform\|zipf/);
  const z = parseArgs(['--key-distribution', 'zipf:1.2', '-r', '1000000']);
  assert.equal(z.keyPattern, 'zipf');
  assert.equal(z.keyExponent, 1.2);
  assert.equal(parseArgs(['--key-distribution', 'gaussian']).keyPattern, 'gaussian');
  assert.equal(parseArgs(['--key-distribution', 'zipf']).keyExponent, 0.99);
  for (const bad of ['zipf:', 'zipf:0', 'zipf:x', 'uniform:1', 'pareto', 'zipf:1:2']) assert.throws(() => parseArgs(['--key-distribution', bad]), /--key-distribution/);
  assert.throws(() => parseArgs(['--ratio', '1-10']), /set:get/);
  assert.throws(() => parseArgs(['--user', 'u']), /needs -a/);
  assert.throws(() => selectTests(parseArgs(['-t', 'sett'])), /unknown test "sett"/);
});

test('-t groups and the LRANGE fill', () => {
  assert.deepEqual(selectTests(parseArgs(['-t', 'ping'])).map((t) => t.name), ['ping_inline', 'ping_mbulk']);
  assert.deepEqual(selectTests(parseArgs(['-t', 'lrange_300'])).map((t) => t.name), ['lrange_fill', 'lrange_300']);
  assert.deepEqual(selectTests(parseArgs(['-t', 'get,set'])).map((t) => t.name), ['set', 'get']);
});

test('a command after the options is benchmarked as given', () => {
  const [t] = selectTests(parseArgs(['-n', '5', 'SET', 'k:__rand_int__', '__data__']));
  assert.equal(t.title, 'SET k:__rand_int__ __data__');
});

test('thread count: enough for the clients, at most the cores', () => {
  assert.equal(threadCount(parseArgs(['-c', '1']), 8), 1);
  assert.equal(threadCount(parseArgs(['-c', '50']), 2), 2);
  assert.equal(threadCount(parseArgs(['-c', '50']), 8), 2);
  assert.equal(threadCount(parseArgs(['-c', '500']), 8), 8);
  assert.equal(threadCount(parseArgs(['-c', '2', '--threads', '4']), 8), 2);
});
