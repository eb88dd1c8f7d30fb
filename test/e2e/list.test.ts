/**
 * List commands against the real server and Postgres: tables (collection-rows.ts), one at a
 * time and pipelined; then a long mixed sequence against a model, expiry and RESP3 shapes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient } from './resp-client';
import { E, arity, hasCommand, kNotInt, kSyntax, kWrongType, runRows, sleep, startTarget, type Row, type Target } from './collection-rows';

let target: Target;
before(async () => { target = await startTarget(); });
after(async () => { await target.stop(); });

const kPositive = E('ERR value is out of range, must be positive');

const tables: Record<string, Row[]> = {
  'LPUSH RPUSH LPUSHX RPUSHX LLEN LRANGE LINDEX': [
    [['RPUSH', 'l', 'a', 'b', 'c'], 3],
    [['LPUSH', 'l', 'x', 'y'], 5],
    [['LRANGE', 'l', '0', '-1'], ['y', 'x', 'a', 'b', 'c']],
    [['LLEN', 'l'], 5],
    [['LRANGE', 'l', '1', '2'], ['x', 'a']],
    [['LRANGE', 'l', '-2', '-1'], ['b', 'c']],
    [['LRANGE', 'l', '-100', '100'], ['y', 'x', 'a', 'b', 'c']],
    [['LRANGE', 'l', '3', '1'], []],
    [['LRANGE', 'l', '5', '10'], []],
    [['LRANGE', 'l', '-9223372036854775808', '9223372036854775807'], ['y', 'x', 'a', 'b', 'c']],
    [['LRANGE', 'l', '9223372036854775807', '-9223372036854775808'], []],
    [['LRANGE', 'l', 'x', '1'], kNotInt],
    [['LRANGE', 'nokey', '0', '-1'], []],
    [['LINDEX', 'l', '0'], 'y'],
    [['LINDEX', 'l', '-1'], 'c'],
    [['LINDEX', 'l', '5'], null],
    [['LINDEX', 'l', '-6'], null],
    [['LINDEX', 'l', '9223372036854775807'], null],
    [['LINDEX', 'l', 'x'], kNotInt],
    [['LINDEX', 'nokey', 'x'], null],
    [['LPUSHX', 'nokey', 'a'], 0],
    [['RPUSHX', 'nokey', 'a', 'b'], 0],
    [['EXISTS', 'nokey'], 0],
    [['LPUSHX', 'l', 'p'], 6],
    [['RPUSHX', 'l', 'q', 'r'], 8],
    [['LRANGE', 'l', '0', '-1'], ['p', 'y', 'x', 'a', 'b', 'c', 'q', 'r']],
    [['LLEN', 'nokey'], 0],
    [['LPUSH', 'l'], arity('lpush')],
  ],
  'LPOP RPOP with and without count; the empty list disappears': [
    [['RPUSH', 'l', 'a', 'b', 'c', 'd'], 4],
    [['LPOP', 'l'], 'a'],
    [['RPOP', 'l'], 'd'],
    [['LPOP', 'l', '0'], []],
    [['RPOP', 'l', '1'], ['c']],
    [['LPOP', 'l', '5'], ['b']],
    [['EXISTS', 'l'], 0],
    [['LPOP', 'l'], null],
    [['LPOP', 'l', '2'], null],
    [['LPOP', 'l', '-1'], kPositive],
    [['LPOP', 'l', 'x'], kPositive],
    [['LPOP', 'l', '1', '2'], arity('lpop')],
    [['RPUSH', 'l', '1', '2', '3'], 3],
    [['RPOP', 'l', '2'], ['3', '2']],
    [['LRANGE', 'l', '0', '-1'], ['1']],
  ],
  'LSET LINSERT LREM LTRIM': [
    [['RPUSH', 'l', 'a', 'b', 'c', 'b', 'a'], 5],
    [['LSET', 'l', '1', 'B'], 'OK'],
    [['LSET', 'l', '-1', 'A'], 'OK'],
    [['LSET', 'l', '5', 'x'], E('ERR index out of range')],
    [['LSET', 'nokey', '0', 'x'], E('ERR no such key')],
    [['LSET', 'nokey', 'x', 'x'], E('ERR no such key')],
    [['LSET', 'l', 'x', 'x'], kNotInt],
    [['LRANGE', 'l', '0', '-1'], ['a', 'B', 'c', 'b', 'A']],
    [['LINSERT', 'l', 'BEFORE', 'c', 'x'], 6],
    [['LINSERT', 'l', 'after', 'A', 'z'], 7],
    [['LINSERT', 'l', 'before', 'a', 'first'], 8],
    [['LINSERT', 'l', 'after', 'b', 'mid'], 9],
    [['LINSERT', 'l', 'before', 'nope', 'x'], -1],
    [['LINSERT', 'nokey', 'before', 'a', 'x'], 0],
    [['LINSERT', 'l', 'middle', 'a', 'x'], kSyntax],
    [['LRANGE', 'l', '0', '-1'], ['first', 'a', 'B', 'x', 'c', 'b', 'mid', 'A', 'z']],
    [['RPUSH', 'r', 'x', 'y', 'x', 'x', 'z', 'x'], 6],
    [['LREM', 'r', '2', 'x'], 2],
    [['LRANGE', 'r', '0', '-1'], ['y', 'x', 'z', 'x']],
    [['LREM', 'r', '-1', 'x'], 1],
    [['LRANGE', 'r', '0', '-1'], ['y', 'x', 'z']],
    [['LREM', 'r', '0', 'nope'], 0],
    [['LREM', 'r', 'x', 'x'], kNotInt],
    [['LREM', 'nokey', '0', 'x'], 0],
    [['RPUSH', 'r', 'x', 'x'], 5],
    [['LREM', 'r', '0', 'x'], 3],
    [['LRANGE', 'r', '0', '-1'], ['y', 'z']],
    [['LINDEX', 'r', '1'], 'z'],
    [['LREM', 'r', '0', 'y'], 1],
    [['LREM', 'r', '1', 'z'], 1],
    [['EXISTS', 'r'], 0],
    [['RPUSH', 't', '0', '1', '2', '3', '4', '5'], 6],
    [['LTRIM', 't', '1', '-2'], 'OK'],
    [['LRANGE', 't', '0', '-1'], ['1', '2', '3', '4']],
    [['LTRIM', 't', '-100', '100'], 'OK'],
    [['LLEN', 't'], 4],
    [['LTRIM', 't', '2', '1'], 'OK'],
    [['EXISTS', 't'], 0],
    [['LTRIM', 'nokey', '0', '1'], 'OK'],
    [['LTRIM', 'nokey', 'x', '1'], kNotInt],
  ],
  'LPOS': [
    [['RPUSH', 'l', 'a', 'b', 'c', 'b', 'a', 'b'], 6],
    [['LPOS', 'l', 'b'], 1],
    [['LPOS', 'l', 'b', 'RANK', '2'], 3],
    [['LPOS', 'l', 'b', 'RANK', '-1'], 5],
    [['LPOS', 'l', 'b', 'RANK', '-2', 'COUNT', '0'], [3, 1]],
    [['LPOS', 'l', 'b', 'COUNT', '0'], [1, 3, 5]],
    [['LPOS', 'l', 'b', 'COUNT', '2'], [1, 3]],
    [['LPOS', 'l', 'b', 'COUNT', '0', 'MAXLEN', '4'], [1, 3]],
    [['LPOS', 'l', 'b', 'RANK', '-1', 'MAXLEN', '1', 'COUNT', '0'], [5]],
    [['LPOS', 'l', 'z'], null],
    [['LPOS', 'l', 'z', 'COUNT', '0'], []],
    [['LPOS', 'nokey', 'a'], null],
    [['LPOS', 'nokey', 'a', 'COUNT', '1'], []],
    [['LPOS', 'l', 'a', 'RANK', '0'], E('ERR RANK can\'t be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list')],
    [['LPOS', 'l', 'a', 'COUNT', '-1'], E('ERR COUNT can\'t be negative')],
    [['LPOS', 'l', 'a', 'MAXLEN', '-1'], E('ERR MAXLEN can\'t be negative')],
    [['LPOS', 'l', 'a', 'BOGUS', '1'], kSyntax],
    [['LPOS', 'l', 'a', 'RANK'], kSyntax],
    [['LPOS', 'l', 'a', 'RANK', '9223372036854775807'], null],
  ],
  'LMOVE RPOPLPUSH LMPOP': [
    [['RPUSH', 'a', '1', '2', '3'], 3],
    [['LMOVE', 'a', 'b', 'LEFT', 'RIGHT'], '1'],
    [['LMOVE', 'a', 'b', 'right', 'left'], '3'],
    [['LRANGE', 'b', '0', '-1'], ['3', '1']],
    [['RPOPLPUSH', 'a', 'b'], '2'],
    [['EXISTS', 'a'], 0],
    [['LRANGE', 'b', '0', '-1'], ['2', '3', '1']],
    [['LMOVE', 'b', 'b', 'LEFT', 'RIGHT'], '2'],
    [['LRANGE', 'b', '0', '-1'], ['3', '1', '2']],
    [['RPOPLPUSH', 'b', 'b'], '2'],
    [['LRANGE', 'b', '0', '-1'], ['2', '3', '1']],
    [['LMOVE', 'b', 'b', 'LEFT', 'LEFT'], '2'],
    [['LMOVE', 'nokey', 'b', 'LEFT', 'LEFT'], null],
    [['LMOVE', 'b', 'c', 'UP', 'LEFT'], kSyntax],
    [['LMPOP', '2', 'nokey', 'b', 'LEFT'], ['b', ['2']]],
    [['LMPOP', '1', 'b', 'RIGHT', 'COUNT', '10'], ['b', ['1', '3']]],
    [['LMPOP', '1', 'b', 'RIGHT'], null],
    [['LMPOP', '0', 'b', 'LEFT'], E('ERR numkeys should be greater than 0')],
    [['LMPOP', '3', 'a', 'b', 'LEFT'], kSyntax],
    [['LMPOP', '1', 'a', 'MIDDLE'], kSyntax],
    [['LMPOP', '1', 'a', 'LEFT', 'COUNT', '0'], E('ERR count should be greater than 0')],
    [['LMPOP', '1', 'a', 'LEFT', 'COUNT', '1', 'COUNT', '1'], kSyntax],
  ],
  'WRONGTYPE against strings and sets': [
    [['SET', 'str', 'v'], 'OK'],
    [['SADD', 'set', 'a'], 1],
    [['RPUSH', 'l', 'a'], 1],
    [['LPUSH', 'str', 'a'], kWrongType],
    [['RPUSHX', 'set', 'a'], kWrongType],
    [['LPOP', 'str'], kWrongType],
    [['RPOP', 'set', '2'], kWrongType],
    [['LLEN', 'str'], kWrongType],
    [['LRANGE', 'str', '0', '-1'], kWrongType],
    [['LINDEX', 'str', 'x'], kWrongType],
    [['LSET', 'str', 'x', 'v'], kWrongType],
    [['LINSERT', 'set', 'before', 'a', 'b'], kWrongType],
    [['LREM', 'str', '0', 'a'], kWrongType],
    [['LTRIM', 'str', '0', '1'], kWrongType],
    [['LPOS', 'str', 'a'], kWrongType],
    [['LMOVE', 'str', 'l', 'LEFT', 'LEFT'], kWrongType],
    [['LMOVE', 'l', 'str', 'LEFT', 'LEFT'], kWrongType],
    [['LMOVE', 'nokey', 'str', 'LEFT', 'LEFT'], null],
    [['LMPOP', '2', 'nokey', 'str', 'LEFT'], kWrongType],
    [['LMPOP', '2', 'l', 'str', 'LEFT'], ['l', ['a']]],
    [['GET', 'set'], kWrongType],
    [['SADD', 'l2', 'x'], 1],
    [['RPUSH', 'l3', 'x'], 1],
    [['SADD', 'l3', 'x'], kWrongType],
    [['SET', 'l3', 'now a string'], 'OK'],
    [['GET', 'l3'], 'now a string'],
    [['RPUSH', 'l3', 'x'], kWrongType],
  ],
};

describe('list commands, one at a time', () => {
  for (const [name, rows] of Object.entries(tables)) it(name, () => runRows(target.port, rows, false));
});

describe('list commands, pipelined (one write)', () => {
  for (const [name, rows] of Object.entries(tables)) it(name, () => runRows(target.port, rows, true));
});

describe('lists: a model, time, RESP3', () => {
  it('stays equal to an array model through 1500 random pushes, pops, inserts, removes and trims', async () => {
    const c = await RawClient.connect(target.port);
    let seed = 7;
    const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
    let model: string[] = [];
    try {
      await c.call('DEL', 'm');
      for (let i = 0; i < 1500; i++) {
        const v = `v${rnd(8)}`;
        const op = rnd(9);
        if (op === 0) { model.unshift(v); assert.equal(await c.call('LPUSH', 'm', v), model.length); }
        else if (op === 1) { model.push(v); assert.equal(await c.call('RPUSH', 'm', v), model.length); }
        else if (op === 2) assert.equal(await c.call('LPOP', 'm'), model.shift() ?? null);
        else if (op === 3) assert.equal(await c.call('RPOP', 'm'), model.pop() ?? null);
        else if (op === 4) {
          const p = model.indexOf(v);
          const w = `w${i}`;
          const after = rnd(2) === 1;
          if (p >= 0) model.splice(after ? p + 1 : p, 0, w);
          const want = model.length === 0 ? 0 : p < 0 ? -1 : model.length;
          assert.equal(await c.call('LINSERT', 'm', after ? 'AFTER' : 'BEFORE', v, w), want, `LINSERT ${v} on ${model.join(' ')}`);
        } else if (op === 5) {
          const count = rnd(5) - 2;
          let removed = 0;
          const idx = model.map((x, k) => (x === v ? k : -1)).filter((k) => k >= 0);
          const pick = count > 0 ? idx.slice(0, count) : count < 0 ? idx.slice(count) : idx;
          model = model.filter((_, k) => { const drop = pick.includes(k); if (drop) removed++; return !drop; });
          assert.equal(await c.call('LREM', 'm', String(count), v), removed, `LREM ${count} ${v} on ${model.join(' ')}`);
        } else if (op === 6 && model.length > 0) {
          const k = rnd(model.length);
          model[k] = `s${i}`;
          assert.equal(await c.call('LSET', 'm', String(k - (rnd(2) ? model.length : 0)), `s${i}`), 'OK');
        } else if (op === 7 && model.length > 4 && rnd(4) === 0) {
          const a = rnd(3);
          const b = model.length - 1 - rnd(3);
          model = a > b ? [] : model.slice(a, b + 1);
          assert.equal(await c.call('LTRIM', 'm', String(a), String(b)), 'OK');
        } else {
          const k = rnd(model.length + 2) - 1;
          assert.equal(await c.call('LINDEX', 'm', String(k)), model[k < 0 ? model.length + k : k] ?? null);
        }
        if (i % 50 === 0) assert.deepEqual(await c.call('LRANGE', 'm', '0', '-1'), model, `after ${i}`);
      }
      assert.deepEqual(await c.call('LRANGE', 'm', '0', '-1'), model);
      assert.equal(await c.call('EXISTS', 'm'), model.length > 0 ? 1 : 0);
    } finally {
      c.close();
    }
  });

  it('a list write on an expired key starts a fresh list', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('DEL', 'k', 'e');
      assert.equal(await c.call('SET', 'k', 'v', 'PX', '100'), 'OK');
      assert.equal(await c.call('RPUSH', 'e', 'a', 'b'), 2);
      const pexpire = await hasCommand(c, 'pexpire');
      if (pexpire) assert.equal(await c.call('PEXPIRE', 'e', '100'), 1);
      await sleep(250);
      assert.equal(await c.call('LPUSHX', 'k', 'x'), 0);
      assert.equal(await c.call('LPUSH', 'k', 'x'), 1);
      assert.deepEqual(await c.call('LRANGE', 'k', '0', '-1'), ['x']);
      if (pexpire) {
        assert.equal(await c.call('LLEN', 'e'), 0);
        assert.equal(await c.call('RPOPLPUSH', 'e', 'k'), null);
        assert.equal(await c.call('RPUSH', 'e', 'c'), 1);
        assert.deepEqual(await c.call('LRANGE', 'e', '0', '-1'), ['c']);
      }
    } finally {
      c.close();
    }
  });

  it('RESP3: LPOP with a count on a missing key and LMPOP with nothing to pop are null', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('HELLO', '3');
      assert.equal(await c.call('LPOP', 'nokey', '2'), null);
      assert.equal(await c.call('LMPOP', '1', 'nokey', 'LEFT'), null);
      c.send('*3\r\n$4\r\nLPOP\r\n$5\r\nnokey\r\n$1\r\n2\r\n');
      await c.read(1);
      assert.ok(c.raw.subarray(-3).equals(Buffer.from('_\r\n')));
    } finally {
      c.close();
    }
  });
});
