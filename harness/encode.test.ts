import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildBatches, encodeCommand, prefixCommands, randomize } from './encode';
import { keyGen, Rng } from './keys';
import { parseArgs } from './options';
import { ReplyScanner } from './scanner';
import { benchmarkData, selectTests } from './workloads';

const keysIn = (b: Buffer): string[] => [...b.toString('latin1').matchAll(/key:(\d{12})/g)].map((m) => m[1]);

test('encodeCommand writes RESP arrays and inline commands', () => {
  assert.equal(encodeCommand(['SET', 'k', 'v']).toString(), '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n');
  assert.equal(encodeCommand(['PING'], true).toString(), 'PING\r\n');
});

test('valkey\'s benchmark data: same bytes, never a placeholder character', () => {
  const d = benchmarkData(4096);
  assert.equal(d.length, 4096);
  assert.ok(d.every((c) => c >= 48 && c < 112));
  assert.deepEqual(benchmarkData(8), benchmarkData(8));
});

test('a SET batch: -P commands, 12-digit keys below -r written in place', () => {
  const o = parseArgs(['-t', 'set', '-P', '4', '-r', '1000', '-d', '10']);
  const [batch] = buildBatches(selectTests(o)[0], o, new Rng(1));
  assert.equal(batch.commands, 4);
  assert.equal(batch.offsets.length, 4);
  const before = batch.buf.length;
  const keys = keyGen('uniform', new Rng(2), 1000, 0, 1);
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    randomize(batch, keys);
    assert.equal(batch.buf.length, before);
    for (const k of keysIn(batch.buf)) {
      assert.ok(Number(k) < 1000);
      seen.add(k);
    }
  }
  assert.ok(seen.size > 500, `${seen.size} distinct keys`);
  // Still four well-formed commands.
  const scanner = new ReplyScanner();
  assert.equal(scanner.feed(batch.buf), 4);
});

test('without -r keys stay literal, like valkey-benchmark', () => {
  const o = parseArgs(['-t', 'get']);
  const [batch] = buildBatches(selectTests(o)[0], o, new Rng(1));
  assert.equal(batch.offsets.length, 0);
  assert.match(batch.buf.toString(), /key:__rand_int__/);
});

test('ZADD: __rand_int__ score and __rand_1st__ member both randomised', () => {
  const o = parseArgs(['-t', 'zadd', '-r', '50']);
  const [batch] = buildBatches(selectTests(o)[0], o, new Rng(1));
  assert.equal(batch.offsets.length, 2);
  randomize(batch, keyGen('uniform', new Rng(3), 50, 0, 1));
  assert.match(batch.buf.toString(), /\$12\r\n\d{12}\r\n\$20\r\nelement:\d{12}\r\n/);
});

test('--ratio: the pool holds the exact mix', () => {
  const o = parseArgs(['--ratio', '1:10', '-r', '100', '-P', '2']);
  const batches = buildBatches(selectTests(o)[0], o, new Rng(7));
  const text = batches.map((b) => b.buf.toString()).join('');
  const sets = text.split('$3\r\nSET').length - 1;
  const gets = text.split('$3\r\nGET').length - 1;
  assert.equal(sets + gets, batches.length * 2);
  assert.ok(Math.abs(gets / sets - 10) < 1, `${sets} SET / ${gets} GET`);
});

test('--data-size-range: value sizes vary within the range', () => {
  const o = parseArgs(['-t', 'set', '--data-size-range', '10-20', '-r', '10']);
  const batches = buildBatches(selectTests(o)[0], o, new Rng(7));
  const sizes = new Set(batches.map((b) => Number(/\$(\d+)\r\n[^\r]*\r\n$/.exec(b.buf.toString())?.[1])));
  assert.ok([...sizes].every((s) => s >= 10 && s <= 20));
  assert.ok(sizes.size > 3);
});

test('key patterns: zipf is skewed, gaussian centred, sequential covers the keyspace', () => {
  const n = 1000;
  const count = (pattern: 'zipf' | 'gaussian' | 'uniform'): number[] => {
    const g = keyGen(pattern, new Rng(11), n, 0, 1);
    const c = new Array<number>(n).fill(0);
    for (let i = 0; i < 100000; i++) {
      const k = g.next();
      assert.ok(k >= 0 && k < n && Number.isInteger(k));
      c[k]++;
    }
    return c;
  };
  const z = count('zipf');
  assert.ok(z[0] > 10 * z[500], `zipf head ${z[0]} vs ${z[500]}`);
  const g = count('gaussian');
  assert.ok(g[500] > 10 * g[10]);
  const u = count('uniform');
  assert.ok(Math.max(...u) < 3 * Math.min(...u));
  const seq = keyGen('sequential', new Rng(1), 10, 3, 4);
  assert.deepEqual(Array.from({ length: 5 }, () => seq.next()), [3, 7, 1, 5, 9]);
});

test('prefix commands: AUTH, SELECT, HELLO 3 in valkey\'s order', () => {
  const p = prefixCommands(parseArgs(['-a', 'pw', '--user', 'bob', '--dbnum', '2', '-3'])).map((b) => b.toString());
  assert.deepEqual(p, [
    '*3\r\n$4\r\nAUTH\r\n$3\r\nbob\r\n$2\r\npw\r\n',
    '*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n',
    '*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n',
  ]);
});
