/**
 * Command sessions of the scripting differential (scripting.test.ts): EVAL/EVALSHA/SCRIPT/
 * FUNCTION/FCALL and what redis.call does inside, each reply compared byte for byte with
 * redis-server 7.0.15. The Lua engine's own conversions are covered by test/scripting.
 */
import type { Cmd } from './oracle';

const lib = (name: string, body: string): string => `#!lua name=${name}\n${body}`;
const kLib = lib('mylib', [
  "redis.register_function('setget', function(keys, args) redis.call('set', keys[1], args[1]); return redis.call('get', keys[1]) end)",
  "redis.register_function{function_name='ro', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}, description='read'}",
  "redis.register_function('tryset', function(keys) return redis.pcall('set', keys[1], 'x') end)",
  "redis.register_function{function_name='rotry', callback=function(keys) return redis.pcall('set', keys[1], 'x') end, flags={'no-writes'}}",
].join('\n'));

const kOne = lib('one', "redis.register_function{function_name='only', callback=function() return 1 end, flags={'no-writes', 'allow-stale'}}");

const ev = (body: string, ...rest: string[]): Cmd => ['EVAL', body, ...rest];

export const kCommandCases: Cmd[] = [
  // numkeys and arguments
  ev('return 1', 'abc'), ev('return 1', '2', 'a'), ev('return 1', '-1'), ev('return 1', '01'), ev('return {KEYS, ARGV}', '2', 'a', 'b', 'c', 'd'),
  ev('return {KEYS, ARGV}', '0', 'x'), ['EVAL', 'return 1'], ev('return +', '0'), ev('#!lua flags=bad\nreturn 1', '0'),
  ev('#!lua\nreturn redis.call("set", KEYS[1], "v")', '1', 'k'), ev('#!lua name=x\nreturn 1', '0'),
  // redis.call's rules
  ev("return redis.call('set', KEYS[1], ARGV[1])", '1', 'k', 'v'), ev("return redis.call('get', KEYS[1])", '1', 'k'),
  ev("return redis.call('lpush', KEYS[1], 'x')", '1', 'k'), ev("return redis.pcall('lpush', KEYS[1], 'x')", '1', 'k'),
  ev("return redis.call('incr', KEYS[1])", '1', 'k'), ev("return redis.pcall('incr', KEYS[1])", '1', 'k'),
  ev("return redis.call('nosuch')", '0'), ev("return redis.pcall('nosuch')", '0'), ev("return redis.call('client', 'nosuch')", '0'),
  ev("return redis.call('client')", '0'), ev("return redis.call('get')", '0'), ev("return redis.pcall('get', 'a', 'b')", '0'),
  ev("return redis.call('multi')", '0'), ev("return redis.call('exec')", '0'), ev("return redis.call('watch', 'k')", '0'),
  ev("return redis.call('eval', 'return 1', '0')", '0'), ev("return redis.call('script', 'load', 'return 1')", '0'),
  ev("return redis.call('fcall', 'x', '0')", '0'), ev("return redis.call('function', 'list')", '0'),
  ev("return redis.call('ping')", '0'), ev("return redis.call('echo', 'hi')", '0'), ev("return redis.call('dbsize')", '0'),
  ev("redis.call('select', '3'); redis.call('set', 'in3', '1'); return redis.call('dbsize')", '0'), ['GET', 'in3'],
  ['SELECT', '3'], ['GET', 'in3'], ['SELECT', '0'],
  ev("redis.call('hset', KEYS[1], 'a', 1, 'b', 2); return redis.call('hgetall', KEYS[1])", '1', 'h'),
  ev("redis.setresp(3); return redis.call('hgetall', KEYS[1])", '1', 'h'),
  ev("redis.call('zadd', KEYS[1], 1.5, 'm'); return {redis.call('zscore', KEYS[1], 'm'), redis.call('zrange', KEYS[1], 0, -1, 'withscores')}", '1', 'z'),
  ev("redis.call('rpush', KEYS[1], 'a', 'b', 'c'); return redis.call('lrange', KEYS[1], 0, -1)", '1', 'l'),
  ev("redis.call('sadd', KEYS[1], 'a'); return redis.call('smembers', KEYS[1])", '1', 's'),
  ev("return redis.call('del', KEYS[1], KEYS[2], KEYS[3])", '3', 'k', 'l', 'nokey'),
  ev("return redis.call('exists', KEYS[1])", '1', 'nokey'), ev("return redis.call('type', KEYS[1])", '1', 'nokey'),
  ev("redis.call('set', KEYS[1], '1'); return redis.call('expire', KEYS[1], 100)", '1', 'e'), ev("return redis.call('ttl', KEYS[1])", '1', 'e'),
  ev("return redis.call('set', KEYS[1], 'v', 'nx')", '1', 'e'), ev("return redis.call('set', KEYS[1], 'v', 'xx', 'get')", '1', 'e'),
  ev("redis.call('set', KEYS[1], 'a'); error('boom')", '1', 'partial'), ['GET', 'partial'],
  ev("redis.call('set', KEYS[1], 'b'); return redis.call('lpush', KEYS[1], 'x')", '1', 'partial'), ['GET', 'partial'],
  ev("local t = redis.pcall('lpush', KEYS[1], 'x'); return t['err']", '1', 'partial'),
  ev("return redis.call('incrbyfloat', KEYS[1], '1.5')", '1', 'f'), ev("return tostring(redis.call('incrbyfloat', KEYS[1], '1.5'))", '1', 'f'),
  ev("return redis.call('lpop', 'nolist')", '0'),
  ev("return redis.call('mset', 'm1', 'a', 'm2', 'b')", '0'), ev("return redis.call('mget', 'm1', 'm2', 'm3')", '0'),
  // read-only calls
  ['EVAL_RO', "return redis.call('get', KEYS[1])", '1', 'm1'], ['EVAL_RO', "return redis.call('set', KEYS[1], 'x')", '1', 'm1'],
  ['EVAL_RO', "return redis.pcall('set', KEYS[1], 'x')", '1', 'm1'], 
  ['EVAL_RO', '#!lua\nreturn 1', '0'], ['EVAL_RO', '#!lua flags=no-writes\nreturn redis.call("get", "m1")', '0'],
  ev('#!lua flags=no-writes\nreturn redis.call("set", "m1", "x")', '0'), ev('#!lua flags=no-writes,allow-oom\nreturn redis.pcall("del", "m1")', '0'),
  ['GET', 'm1'],
  // EVALSHA and the script cache
  ['SCRIPT', 'LOAD', "return 'loaded'"], ['EVALSHA', 'c6453fdc3a6d02edfd89d1ba61ab2bbd5ee98c97', '0'],
  ['EVALSHA', 'C6453FDC3A6D02EDFD89D1BA61AB2BBD5EE98C97', '0'], ['EVALSHA_RO', 'c6453fdc3a6d02edfd89d1ba61ab2bbd5ee98c97', '0'],
  ['EVALSHA', 'c6453fdc3a6d02edfd89d1ba61ab2bbd5ee98c97', 'x'], ['EVALSHA', 'abc', 'x'], ['EVALSHA', 'ffffffffffffffffffffffffffffffffffffffff', '0'],
  ['SCRIPT', 'EXISTS', 'c6453fdc3a6d02edfd89d1ba61ab2bbd5ee98c97', 'abc', 'ffffffffffffffffffffffffffffffffffffffff'],
  ev('return 7', '0'), ['EVALSHA', '8b3eaafb4f2e1dbb9eb5e9863a38daa65b8e6bf9', '0'], ['SCRIPT', 'EXISTS', '8b3eaafb4f2e1dbb9eb5e9863a38daa65b8e6bf9'],
  ['SCRIPT', 'LOAD', 'return +'], ['SCRIPT', 'LOAD', '#!lua flags=nope\nreturn 1'], ['SCRIPT', 'LOAD'], ['SCRIPT', 'EXISTS'],
  ['SCRIPT', 'FLUSH', 'bad'], ['SCRIPT', 'FLUSH', 'ASYNC', 'x'], ['SCRIPT', 'FLUSH', 'sync'],
  ['EVALSHA', 'c6453fdc3a6d02edfd89d1ba61ab2bbd5ee98c97', '0'], ['SCRIPT', 'EXISTS', 'c6453fdc3a6d02edfd89d1ba61ab2bbd5ee98c97'],
  ['SCRIPT', 'FLUSH'], ['SCRIPT', 'KILL'], ['SCRIPT', 'KILL', 'x'], ['SCRIPT', 'HELP'], ['SCRIPT', 'NOPE'], ['SCRIPT'],
  // CLUSTER as a redis-server without cluster support; RESET is noscript, the rest reach the command
  ['CLUSTER', 'INFO'], ['CLUSTER', 'NODES'], ['CLUSTER', 'HELP'], ['CLUSTER', 'RESET', 'HARD'], ['CLUSTER', 'NOPE'], ['CLUSTER'],
  ['CLUSTER', 'KEYSLOT'], ev("return redis.call('cluster', 'reset', 'hard')", '0'), ev("return redis.pcall('cluster', 'info')", '0'),
  ev("return redis.call('cluster', 'nope')", '0'),
  // functions
  ['FUNCTION', 'FLUSH'], ['FUNCTION', 'LIST'], ['FCALL', 'setget', '1', 'fk', 'v'], ['FCALL', 'setget', 'x'],
  ['FUNCTION', 'LOAD', kLib], ['FUNCTION', 'LOAD', kLib], ['FUNCTION', 'LOAD', 'REPLACE', kLib], ['FUNCTION', 'LOAD', 'BAD', kLib],
  ['FUNCTION', 'LOAD', 'return 1'], ['FUNCTION', 'LOAD', lib('other', "redis.register_function('setget', function() return 1 end)")],
  ['FUNCTION', 'LOAD', lib('bad name', 'return 1')], ['FUNCTION', 'LOAD', lib('nofn', 'return 1')],
  ['FUNCTION', 'LOAD', lib('boom', "error('x')")], ['FUNCTION', 'LOAD', lib('calls', "redis.call('ping')")],
  ['FCALL', 'setget', '1', 'fk', 'v'], ['FCALL', 'setget', 'x'], ['FCALL', 'setget', '2', 'a'], ['FCALL', 'nofn', '0'],
  ['FCALL_RO', 'setget', '1', 'fk', 'v'], ['FCALL_RO', 'ro', '1', 'fk'], ['FCALL', 'ro', '1', 'fk'], ['FCALL', 'tryset', '1', 'fk'],
  ['FCALL_RO', 'rotry', '1', 'fk'], ['FCALL', 'rotry', '1', 'fk'], ['FCALL', 'SETGET', '1', 'fk', 'v'],
  ['FUNCTION', 'STATS'], ['FUNCTION', 'KILL'], ['FUNCTION', 'HELP'], ['FUNCTION', 'NOPE'],
  ['FUNCTION', 'RESTORE', 'bad'], ['FUNCTION', 'RESTORE', 'bad', 'bad'], ['FUNCTION', 'RESTORE', 'bad', 'FLUSH', 'x'],
  ['FUNCTION', 'DELETE', 'nolib'], ['FUNCTION', 'DELETE', 'mylib'], ['FCALL', 'setget', '1', 'fk', 'v'], ['FUNCTION', 'DELETE', 'mylib'],
  // LIST orders functions as Redis's dict does: one function a library, one library
  ['FUNCTION', 'LOAD', kOne], ['FUNCTION', 'LIST'], ['FUNCTION', 'LIST', 'WITHCODE'], ['FUNCTION', 'LIST', 'LIBRARYNAME', 'o*'],
  ['FUNCTION', 'LIST', 'LIBRARYNAME', 'O*'], ['FUNCTION', 'LIST', 'LIBRARYNAME', 'x*'], ['FUNCTION', 'LIST', 'LIBRARYNAME'],
  ['FUNCTION', 'LIST', 'WITHCODE', 'WITHCODE'], ['FUNCTION', 'LIST', 'bad'], ['FUNCTION', 'LIST', 'WITHCODE', 'LIBRARYNAME', 'one'],
  ['FUNCTION', 'STATS'],
  ['FUNCTION', 'FLUSH', 'bad'], ['FUNCTION', 'FLUSH', 'ASYNC'], ['FUNCTION', 'STATS'],
];
