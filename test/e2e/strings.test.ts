/**
 * Table-driven tests of the first storage commands against the real server and Postgres:
 * each row is a command and the reply Redis 7 gives, run in order on one connection.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient, encode, type Value } from './resp-client';
import { startServer, type RunningServer } from './start-server';

let server: RunningServer;
before(async () => { server = await startServer(['--workers', '2']); });
after(async () => { await server.stop(); });

const E = (error: string) => ({ error });
const syntax = E('ERR syntax error');
const notInt = E('ERR value is not an integer or out of range');
const wrongArity = (c: string) => E(`ERR wrong number of arguments for '${c}' command`);

type Row = [string[], Value];

async function runTable(rows: Row[], pipelined: boolean): Promise<void> {
  const c = await RawClient.connect(server.port);
  try {
    await c.call('FLUSHALL');
    if (pipelined) {
      c.send(Buffer.concat(rows.map(([cmd]) => encode(...cmd))));
      const got = await c.read(rows.length);
      rows.forEach(([cmd, want], i) => assert.deepEqual(got[i], want, cmd.join(' ')));
    } else {
      for (const [cmd, want] of rows) assert.deepEqual(await c.call(...cmd), want, cmd.join(' '));
    }
  } finally {
    c.close();
  }
}

const tables: Record<string, Row[]> = {
  'GET and SET': [
    [['GET', 'k'], null],
    [['SET', 'k', 'v'], 'OK'],
    [['GET', 'k'], 'v'],
    [['SET', 'k', ''], 'OK'],
    [['GET', 'k'], ''],
    [['SET', 'k'], wrongArity('set')],
    [['GET'], wrongArity('get')],
    [['GET', 'k', 'x'], wrongArity('get')],
  ],
  'SET options': [
    [['SET', 'k', 'a', 'NX'], 'OK'],
    [['SET', 'k', 'b', 'NX'], null],
    [['SET', 'k', 'c', 'XX'], 'OK'],
    [['SET', 'nope', 'c', 'XX'], null],
    [['SET', 'k', 'd', 'GET'], 'c'],
    [['SET', 'fresh', 'd', 'GET'], null],
    [['SET', 'k', 'e', 'NX', 'GET'], 'd'],
    [['GET', 'k'], 'd'],
    [['SET', 'k', 'e', 'NX', 'XX'], syntax],
    [['SET', 'k', 'e', 'EX', '10', 'PX', '100'], syntax],
    [['SET', 'k', 'e', 'EX', '10', 'KEEPTTL'], syntax],
    [['SET', 'k', 'e', 'EX'], syntax],
    [['SET', 'k', 'e', 'EX', 'x'], notInt],
    [['SET', 'k', 'e', 'EX', '0'], E("ERR invalid expire time in 'set' command")],
    [['SET', 'k', 'e', 'PX', '-5'], E("ERR invalid expire time in 'set' command")],
    [['SET', 'k', 'e', 'EX', '9223372036854775807'], E("ERR invalid expire time in 'set' command")],
    [['SET', 'k', 'e', 'BOGUS'], syntax],
    [['SET', 'k', 'e', 'ex', '100', 'ex', '100'], 'OK'],
    [['SET', 'k', 'f', 'KEEPTTL'], 'OK'],
    [['GET', 'k'], 'f'],
    [['SET', 'k', 'g', 'EXAT', '1'], 'OK'],
    [['GET', 'k'], null],
    [['SET', 'k', 'h', 'PXAT', String(Date.now() + 100000)], 'OK'],
    [['GET', 'k'], 'h'],
  ],
  'MGET MSET DEL EXISTS DBSIZE': [
    [['MSET', 'a', '1', 'b', '2', 'a', '3'], 'OK'],
    [['MGET', 'a', 'b', 'c', 'a'], ['3', '2', null, '3']],
    [['MSET', 'a'], wrongArity('mset')],
    [['MSET', 'a', '1', 'b'], wrongArity('mset')],
    [['EXISTS', 'a', 'a', 'c'], 2],
    [['DBSIZE'], 2],
    [['DEL', 'a', 'a', 'c'], 1],
    [['DEL', 'a'], 0],
    [['DBSIZE'], 1],
    [['SELECT', '1'], 'OK'],
    [['DBSIZE'], 0],
    [['GET', 'b'], null],
    [['SET', 'b', 'db1'], 'OK'],
    [['SELECT', '0'], 'OK'],
    [['GET', 'b'], '2'],
    [['FLUSHDB'], 'OK'],
    [['DBSIZE'], 0],
    [['SELECT', '1'], 'OK'],
    [['GET', 'b'], 'db1'],
    [['FLUSHALL', 'BOGUS'], syntax],
    [['FLUSHALL', 'ASYNC'], 'OK'],
    [['GET', 'b'], null],
  ],
  'INCR family': [
    [['INCR', 'n'], 1],
    [['INCR', 'n'], 2],
    [['INCRBY', 'n', '10'], 12],
    [['DECR', 'n'], 11],
    [['DECRBY', 'n', '20'], -9],
    [['INCRBY', 'n', 'x'], notInt],
    [['INCRBY', 'n', '1.5'], notInt],
    [['SET', 's', 'abc'], 'OK'],
    [['INCR', 's'], notInt],
    [['SET', 's', ' 1'], 'OK'],
    [['INCR', 's'], notInt],
    [['SET', 's', '01'], 'OK'],
    [['INCR', 's'], notInt],
    [['SET', 'max', '9223372036854775807'], 'OK'],
    [['INCR', 'max'], E('ERR increment or decrement would overflow')],
    [['SET', 'min', '-9223372036854775808'], 'OK'],
    [['DECR', 'min'], E('ERR increment or decrement would overflow')],
    [['DECRBY', 'x', '-9223372036854775808'], E('ERR decrement would overflow')],
    [['INCRBY', 'big', '9223372036854775807'], 9223372036854775807n.toString() === '9223372036854775807' ? 9223372036854775807 : 0],
    [['GET', 'big'], '9223372036854775807'],
  ],
};

describe('string commands, one at a time', () => {
  for (const [name, rows] of Object.entries(tables)) it(name, () => runTable(rows, false));
});

describe('string commands, pipelined (one batch)', () => {
  for (const [name, rows] of Object.entries(tables)) it(name, () => runTable(rows, true));

  it('gives serial replies for duplicate keys inside one pipeline', () => runTable([
    [['SET', 'k', 'a'], 'OK'], [['SET', 'k', 'b'], 'OK'], [['GET', 'k'], 'b'],
    [['SET', 'j', 'v', 'NX'], 'OK'], [['SET', 'j', 'v', 'NX'], null],
    [['INCR', 'i'], 1], [['INCR', 'i'], 2], [['MSET', 'k', 'c', 'k', 'd'], 'OK'], [['MGET', 'k', 'j', 'i'], ['d', 'v', '2']],
    [['DEL', 'k'], 1], [['GET', 'k'], null], [['SET', 'k', 'e'], 'OK'], [['EXISTS', 'k'], 1],
  ], true));

  // one incr_many() statement runs these in key order: the replies must still be arrival order
  it('gives serial replies for a run of INCR-family commands over mixed keys and errors', () => runTable([
    [['SET', 'txt', 'abc'], 'OK'], [['SET', 'max', '9223372036854775806'], 'OK'], [['HSET', 'h', 'f', '1'], 1],
    [['INCR', 'z'], 1], [['INCRBY', 'a', '5'], 5], [['INCR', 'z'], 2], [['DECR', 'a'], 4], [['INCR', 'txt'], notInt],
    [['INCR', 'max'], Number('9223372036854775807')], [['INCR', 'max'], E('ERR increment or decrement would overflow')],
    [['INCR', 'h'], E('WRONGTYPE Operation against a key holding the wrong kind of value')],
    [['DECRBY', 'z', '10'], -8], [['INCRBY', 'a', '-4'], 0], [['INCR', 'b\x00\xff'], 1],
    [['MGET', 'z', 'a', 'txt', 'max'], ['-8', '0', 'abc', '9223372036854775807']],
  ], true));
});

describe('binary safety and expiry', () => {
  it('stores any bytes in keys and values', async () => {
    const c = await RawClient.connect(server.port);
    const key = Buffer.from([0, 1, 13, 10, 255, 32]);
    const value = Buffer.alloc(256);
    for (let i = 0; i < 256; i++) value[i] = i;
    assert.equal(await c.call('SET', key, value), 'OK');
    c.send(encode('GET', key));
    await c.read(1);
    assert.ok(c.raw.includes(Buffer.concat([Buffer.from('$256\r\n'), value, Buffer.from('\r\n')])));
    c.close();
  });

  it('stores a 5 MB value', async () => {
    const c = await RawClient.connect(server.port);
    const big = Buffer.alloc(5 * 1024 * 1024, 'x');
    assert.equal(await c.call('SET', 'big', big), 'OK');
    assert.equal(((await c.call('GET', 'big')) as string).length, big.length);
    c.close();
  });

  it('never returns an expired key', async () => {
    const c = await RawClient.connect(server.port);
    // 1.5 s, not 150 ms: at load ~20 the SET and GET took longer than 150 ms (a full run)
    const set = Date.now();
    assert.equal(await c.call('SET', 'ttl', 'v', 'PX', '1500'), 'OK');
    assert.equal(await c.call('GET', 'ttl'), 'v');
    assert.ok(Date.now() - set < 1500, 'the GET ran before the TTL');
    await new Promise((r) => setTimeout(r, set + 1600 - Date.now()));
    assert.equal(await c.call('GET', 'ttl'), null);
    assert.deepEqual(await c.call('MGET', 'ttl'), [null]);
    assert.equal(await c.call('EXISTS', 'ttl'), 0);
    assert.equal(await c.call('SET', 'ttl', 'again', 'NX'), 'OK');
    assert.equal(await c.call('SET', 'cnt', '5', 'PX', '100'), 'OK');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(await c.call('INCR', 'cnt'), 1);
    c.close();
  });
});

describe('INFO storage sections', () => {
  it('reports the storage mode and per-db key counts', async () => {
    const c = await RawClient.connect(server.port);
    await c.call('FLUSHALL');
    await c.call('MSET', 'a', '1', 'b', '2');
    await c.call('SET', 'c', '3', 'EX', '1000');
    await c.call('SELECT', '5');
    await c.call('SET', 'x', '1');
    // INFO keyspace is cached for one second: wait it out
    await new Promise((r) => setTimeout(r, 1100));
    const text = String(await c.call('INFO', 'keyspace'));
    assert.match(text, /^# Keyspace\r\n/);
    assert.match(text, /\r\ndb0:keys=3,expires=1,avg_ttl=\d+/);
    assert.match(text, /\r\ndb5:keys=1,expires=0,avg_ttl=0/);
    const persistence = String(await c.call('INFO', 'persistence'));
    assert.match(persistence, /\r\npostresp_storage_mode:logged\r\n/);
    assert.match(persistence, /\r\nloading:0\r\n/);
    c.close();
  });
});
