/**
 * Table-driven tests of the remaining string commands against the real server and Postgres:
 * each row is a command and Redis 7.0's reply (taken from redis-server 7.0.15), run in order on
 * one connection, one at a time and again pipelined in one write.
 */
import { after, before, describe, it } from 'node:test';
import { between, runTable as runShared, type Row } from './table';
import { startServer, type RunningServer } from './start-server';

let server: RunningServer;
before(async () => { server = await startServer(['--workers', '2', '--storage-mode', 'unlogged']); });
after(async () => { await server.stop(); });

const E = (error: string) => ({ error });
const syntax = E('ERR syntax error');
const notInt = E('ERR value is not an integer or out of range');
const notFloat = E('ERR value is not a valid float');
const wrongType = E('WRONGTYPE Operation against a key holding the wrong kind of value');
const tooLong = E('ERR string exceeds maximum allowed size (proto-max-bulk-len)');
const arity = (c: string) => E(`ERR wrong number of arguments for '${c}' command`);
const invalidExpire = (c: string) => E(`ERR invalid expire time in '${c}' command`);

/** expected reply, or a check of it (TTLs) */

const runTable = (rows: Row[], pipelined: boolean) => runShared(server.port, rows, pipelined, (c) => c.call('FLUSHDB'));

const tables: Record<string, Row[]> = {
  'SETNX SETEX PSETEX GETSET': [
    [['SETNX', 'k', 'a'], 1], [['SETNX', 'k', 'b'], 0], [['GET', 'k'], 'a'],
    [['SETEX', 'k', '100', 'v'], 'OK'], [['TTL', 'k'], 100], [['GET', 'k'], 'v'],
    [['PSETEX', 'k', '100000', 'w'], 'OK'], [['PTTL', 'k'], between(99000, 100000)],
    [['SETEX', 'k', '0', 'v'], invalidExpire('setex')], [['SETEX', 'k', '-1', 'v'], invalidExpire('setex')],
    [['SETEX', 'k', 'abc', 'v'], notInt], [['PSETEX', 'k', '0', 'v'], invalidExpire('psetex')],
    [['SETEX', 'k', '9223372036854775807', 'v'], invalidExpire('setex')], [['SETEX', 'k', '10'], arity('setex')],
    [['GETSET', 'k', 'x'], 'w'], [['TTL', 'k'], -1], [['GETSET', 'nokey', 'y'], null], [['GET', 'nokey'], 'y'],
    [['HSET', 'h', 'f', 'v'], 1], [['SETNX', 'h', 'v'], 0], [['GETSET', 'h', 'v'], wrongType],
  ],
  'GETDEL GETEX': [
    [['SET', 'k', 'v'], 'OK'], [['GETDEL', 'k'], 'v'], [['GETDEL', 'k'], null], [['EXISTS', 'k'], 0],
    [['SET', 'k', 'v'], 'OK'], [['GETEX', 'k'], 'v'], [['GETEX', 'k', 'EX', '50'], 'v'], [['TTL', 'k'], 50],
    [['GETEX', 'k', 'PX', '70000'], 'v'], [['TTL', 'k'], 70], [['GETEX', 'k', 'PERSIST'], 'v'], [['TTL', 'k'], -1],
    [['GETEX', 'k', 'EXAT', '4102444800'], 'v'], [['EXPIRETIME', 'k'], 4102444800],
    [['GETEX', 'k', 'PXAT', '4102444800123'], 'v'], [['PEXPIRETIME', 'k'], 4102444800123],
    [['GETEX', 'nokey', 'EX', 'abc'], null], [['GETEX', 'k', 'EX', 'abc'], notInt], [['GETEX', 'k', 'EX', '0'], invalidExpire('getex')],
    [['GETEX', 'k', 'PERSIST', 'EX', '10'], syntax], [['GETEX', 'k', 'EX', '10', 'PERSIST'], syntax],
    [['GETEX', 'k', 'EX', '10', 'EX', '20'], 'v'], [['GETEX', 'k', 'PERSIST', 'PERSIST'], 'v'],
    [['GETEX', 'k', 'KEEPTTL'], syntax], [['GETEX', 'k', 'EX'], syntax], [['GETEX', 'k', 'EX', '10', 'PX', '10'], syntax],
    [['GETEX', 'k', 'EXAT', '1'], 'v'], [['EXISTS', 'k'], 0],
    [['HSET', 'h', 'f', 'v'], 1], [['GETDEL', 'h'], wrongType], [['GETEX', 'h', 'EX', 'abc'], wrongType], [['GETDEL'], arity('getdel')],
  ],
  'MSETNX': [
    [['MSETNX', 'a', '1', 'b', '2'], 1], [['MSETNX', 'a', '1', 'c', '3'], 0], [['MGET', 'a', 'b', 'c'], ['1', '2', null]],
    [['MSETNX', 'd', '1', 'd', '2'], 1], [['GET', 'd'], '2'], [['MSETNX', 'd'], arity('msetnx')],
    [['MSETNX', 'e', '1', 'f'], arity('msetnx')], [['SET', 'x', 'v', 'PXAT', '1'], 'OK'], [['MSETNX', 'x', 'new'], 1], [['GET', 'x'], 'new'],
  ],
  'APPEND STRLEN GETRANGE SUBSTR SETRANGE': [
    [['APPEND', 'k', 'Hello'], 5], [['APPEND', 'k', ' World'], 11], [['STRLEN', 'k'], 11], [['STRLEN', 'nokey'], 0],
    [['GETRANGE', 'k', '0', '4'], 'Hello'], [['GETRANGE', 'k', '-5', '-1'], 'World'], [['GETRANGE', 'k', '5', '1'], ''],
    [['GETRANGE', 'k', '-1', '-5'], ''], [['GETRANGE', 'k', '0', '9223372036854775807'], 'Hello World'],
    [['GETRANGE', 'k', '-9223372036854775808', '1'], 'He'], [['GETRANGE', 'nokey', '0', '-1'], ''], [['SUBSTR', 'k', '1', '3'], 'ell'],
    [['GETRANGE', 'k', 'x', '1'], notInt], [['SETRANGE', 'k', '6', 'Redis'], 11], [['GET', 'k'], 'Hello Redis'],
    [['SETRANGE', 'k', '13', 'X'], 14], [['GET', 'k'], 'Hello Redis\0\0X'], [['SETRANGE', 'k', '-1', 'x'], E('ERR offset is out of range')],
    [['SETRANGE', 'k', 'x', 'x'], notInt], [['SETRANGE', 'n', '5', ''], 0], [['EXISTS', 'n'], 0], [['SETRANGE', 'k', '1', ''], 14],
    [['SETRANGE', 'n', '2', 'ab'], 4], [['GET', 'n'], '\0\0ab'], [['SETRANGE', 'n', '536870911', 'xx'], tooLong],
    [['SETRANGE', 'nokey', '536870912', ''], 0], [['SET', 'b', Buffer.from([0, 255, 13, 10])], 'OK'], [['APPEND', 'b', Buffer.from([0])], 5],
    [['STRLEN', 'b'], 5], [['GETRANGE', 'b', '1', '2'], '\xff\r'],
    [['HSET', 'h', 'f', 'v'], 1], [['APPEND', 'h', 'x'], wrongType], [['STRLEN', 'h'], wrongType], [['GETRANGE', 'h', '0', '1'], wrongType],
    [['SETRANGE', 'h', '0', 'x'], wrongType], [['SETRANGE', 'h', '0', ''], wrongType],
  ],
  'INCRBYFLOAT (x87 long double, %.17Lf)': [
    [['INCRBYFLOAT', 'f', '0.1'], '0.1'], [['INCRBYFLOAT', 'f', '0.2'], '0.3'], [['INCRBYFLOAT', 'f', '-0.3'], '0'],
    [['INCRBYFLOAT', 'f', '1e-18'], '0'], [['INCRBYFLOAT', 'g', '1.5e-17'], '0.00000000000000002'],
    [['INCRBYFLOAT', 'h', '0x1p-3'], '0.125'], [['INCRBYFLOAT', 'h', '+1.5'], '1.625'], [['INCRBYFLOAT', 'i', '5.'], '5'],
    [['INCRBYFLOAT', 'i', '.5'], '5.5'], [['INCRBYFLOAT', 'j', '123456789012345678901234567890'], '123456789012345678899921813504'],
    [['INCRBYFLOAT', 'k', '3.814697265625e-06'], '0.00000381469726562'],
    [['SET', 'l', '1e300'], 'OK'], [['INCRBYFLOAT', 'l', '0'], '1000000000000000000008997324079559193870523944273290747938260082321265646596180935755849152083750497190350372508614274835903592556184672983913096260520748646287327135641843653294084255107606016789726652932370030551382947620994540294772781889620606179267611627097410650567187386105690089424915104006144'],
    [['INCRBYFLOAT', 'x', 'abc'], notFloat], [['INCRBYFLOAT', 'x', ' 1'], notFloat], [['INCRBYFLOAT', 'x', '1 '], notFloat],
    [['INCRBYFLOAT', 'x', 'nan'], notFloat], [['INCRBYFLOAT', 'x', '1e5000'], notFloat], [['INCRBYFLOAT', 'x', '1e-5000'], notFloat],
    [['INCRBYFLOAT', 'x', '0x'], notFloat], [['INCRBYFLOAT', 'x', ''], notFloat], [['INCRBYFLOAT', 'x', '1e'], notFloat],
    [['INCRBYFLOAT', 'x', 'inf'], E('ERR increment would produce NaN or Infinity')], [['EXISTS', 'x'], 0],
    [['SET', 's', 'abc'], 'OK'], [['INCRBYFLOAT', 's', '1'], notFloat], [['SET', 's', '10'], 'OK'], [['EXPIRE', 's', '100'], 1],
    [['INCRBYFLOAT', 's', '2.5e2'], '260'], [['TTL', 's'], 100], [['HSET', 'hh', 'f', 'v'], 1], [['INCRBYFLOAT', 'hh', '1'], wrongType],
    [['INCRBYFLOAT', 'hh', 'x'], wrongType], [['SET', 's', 'x'], 'OK'], [['INCRBYFLOAT', 's', 'y'], notFloat],
  ],
  'LCS': [
    [['MSET', 'a', 'ohmytext', 'b', 'mynewtext'], 'OK'], [['LCS', 'a', 'b'], 'mytext'], [['LCS', 'a', 'b', 'LEN'], 6],
    [['LCS', 'a', 'b', 'IDX'], ['matches', [[[4, 7], [5, 8]], [[2, 3], [0, 1]]], 'len', 6]],
    [['LCS', 'a', 'b', 'IDX', 'MINMATCHLEN', '4'], ['matches', [[[4, 7], [5, 8]]], 'len', 6]],
    [['LCS', 'a', 'b', 'IDX', 'WITHMATCHLEN'], ['matches', [[[4, 7], [5, 8], 4], [[2, 3], [0, 1], 2]], 'len', 6]],
    [['LCS', 'a', 'nokey'], ''], [['LCS', 'a', 'b', 'IDX', 'LEN'], E('ERR If you want both the length and indexes, please just use IDX.')],
    [['LCS', 'a', 'b', 'BOGUS'], syntax], [['LCS', 'a', 'b', 'MINMATCHLEN', 'x'], notInt], [['LCS', 'a'], arity('lcs')],
    [['HSET', 'h', 'f', 'v'], 1], [['LCS', 'a', 'h', 'BOGUS'], E('ERR The specified keys must contain string values')],
  ],
};

describe('more string commands (table-driven, Redis 7 replies)', () => {
  for (const [name, rows] of Object.entries(tables)) {
    it(`${name}: one at a time`, async () => runTable(rows, false));
    it(`${name}: pipelined`, async () => runTable(rows, true));
  }
});
