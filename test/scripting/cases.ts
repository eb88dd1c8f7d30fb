/** Scripts compared byte for byte between redis-server's EVAL and the engine (differential.test.ts). */

export const kEvalCases: string[] = [
  // conversions Lua → RESP
  'return 1', 'return -3.9', 'return 3.99', 'return 1e20', 'return 0/0', 'return true', 'return false', 'return nil',
  "return 'a\\0b'", "return {1,2,nil,4}", 'return {a=1}', "return {1, {err='nested'}, {ok='okk'}, 3.5, true, false, 'x'}",
  "return {err='abc'}", "return {err=''}", "return {err='a\\nb'}", "return {ok='a\\r\\nb'}", "return {err='-x y'}",
  'return {double=1.5}', 'return {double=3}', 'return {double=1/0}', 'return {double=-1/0}', 'return {double=0.1}',
  "return {big_number='123456789012345678901234567890'}", "return {verbatim_string={format='txt', string='hello'}}",
  'return {map={a=1}}', "return {set={a=true}}", 'return {true, false}', 'redis.setresp(3); return {true, false, nil}',
  'redis.setresp(3); return true', 'redis.setresp(3); return false', 'return {{{{1}}}}',
  // RESP → Lua
  "return redis.call('ping')", "return redis.call('get', 'nokey')", "return type(redis.call('get', 'nokey'))",
  "redis.call('del','hh'); redis.call('hset','hh','f','v'); return redis.call('hgetall','hh')",
  "redis.setresp(3); redis.call('del','hh'); redis.call('hset','hh','f','v'); return redis.call('hgetall','hh')",
  "redis.setresp(3); local r = redis.call('hgetall','hh'); return {type(r), type(r.map), r.map.f}",
  "redis.setresp(3); redis.call('del','ss'); redis.call('sadd','ss','m'); return redis.call('smembers','ss')",
  "redis.setresp(3); return {type(redis.call('get','nokey'))}", "redis.setresp(3); return redis.call('get','nokey')",
  "redis.call('del','zz'); redis.call('zadd','zz',1.5,'m'); return redis.call('zscore','zz','m')",
  "redis.setresp(3); redis.call('del','zz'); redis.call('zadd','zz',1.5,'m'); local d = redis.call('zscore','zz','m'); return {type(d), d.double}",
  "redis.setresp(3); return redis.call('zscore','zz','m')", "return redis.call('exists', 'zz')",
  "redis.call('del','l'); redis.call('rpush','l','a','b'); return redis.call('lrange','l',0,-1)",
  "return redis.call('set','n',0.1)", "redis.call('set','n',0.1); return redis.call('get','n')",
  "redis.call('set','n',1e300); return redis.call('get','n')", "redis.call('set','n',123456789012); return redis.call('get','n')",
  "return redis.call('get', 1.5)",
  // errors
  "a=5", 'return b', 'string.x=1', "rawset(_G,'x',1)", 'setmetatable(_G,nil)', "return redis.call('nocmd')",
  "return pcall(redis.call,'nocmd')", "local ok,e=pcall(redis.call,'nocmd'); return {tostring(ok), type(e), e}",
  "local e = redis.pcall('nocmd'); local t={} for k,v in pairs(e) do t[#t+1]=k..'='..tostring(v) end table.sort(t) return t",
  "redis.call('set','s','1'); return redis.call('lpush','s',1)", "redis.call('set','s','1'); return redis.pcall('lpush','s',1)",
  "return {1, 2, redis.pcall('lpush','s', 'x')}", "local function f() return redis.call('incr','s2', 'x') end return f()",
  "error('boom')", "error({err='My Err'})", "error({err='-My Err'})", 'error(5)', 'error(nil)', "error('a\\nb')",
  'local x = nil + 1', "local x = 1\nlocal y = 2\nreturn x + nil", 'return 1 +', "return redis.call('get')",
  "return redis.call('set','a',1,2,3,4,5,6)", "return redis.call()", "return redis.call(1)", "return redis.call('get', {})",
  "return redis.call('get', true)", "return redis.error_reply('x')", "return redis.error_reply('-x y')",
  "local t = redis.error_reply('x y'); local r={} for k,v in pairs(t) do r[#r+1]=k..'='..tostring(v) end return r",
  "return redis.status_reply('x')", "return redis.error_reply(5)", "return redis.status_reply()",
  "return {pcall(error)}", "return {pcall(error, {err='x'})}", "return {pcall(error, {foo='x'})}",
  "return {xpcall(function() error('x') end, function(e) return 'h:' .. e end)}",
  "return {xpcall(function() redis.call('nocmd') end, function(e) return type(e) end)}",
  "string.format = nil", "local s = 'abc'; s.x = 1", "getmetatable('').__index = {}", 'KEYS = 1',
  'return type(getmetatable(\'\'))', 'return type(getmetatable(_G))', 'return type(getmetatable(string))',
  "return os", 'return type(loadstring), type(load)', "return loadstring('return 1')()", "return {loadstring(string.dump(function() return 1 end))}",
  "return type(load('return 1'))", "return print", "return dofile", "return getfenv", "return newproxy", "return require",
  // redis.* API
  "return redis.sha1hex('abc')", 'return redis.sha1hex()', 'return redis.sha1hex(5)', 'return redis.sha1hex({})',
  'return redis.setresp(4)', 'return redis.setresp()', "return redis.setresp('3')", "return redis.log(redis.LOG_WARNING, 'hi')",
  'return redis.log(redis.LOG_WARNING)', "return redis.log(99, 'x')", "return redis.log('x', 'y')",
  'return {redis.REPL_ALL, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_NONE, redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}',
  'return redis.set_repl(redis.REPL_ALL)', 'return redis.set_repl(99)', 'return redis.set_repl()', 'return redis.replicate_commands()',
  'return redis.breakpoint()', "return redis.debug('x')", 'return type(redis.debug) .. type(redis.breakpoint)',
  "local t = {} for k,v in pairs(redis) do t[#t+1]=k end table.sort(t) return t",
  "local t = {} for k,v in pairs(_G) do t[#t+1]=k end table.sort(t) return t",
  "return redis.acl_check_cmd('get','x')", 'return #KEYS .. #ARGV', 'KEYS[1] = 1; return KEYS[1]', "return unpack({1,2})",
  'return table.getn({1,2})', "return string.format('%d', 3.5)", "return tostring(1e15) .. ' ' .. tostring(0.1)", 'return _VERSION',
  "return coroutine.wrap(function() return redis.call('ping') end)()", "redis.call('set','w',1); return redis.call('get','w')",
  // shebang
  '#!lua flags=bogus\nreturn 1', '#!lua\nreturn x', '#!lua flags=no-writes,allow-oom\nreturn 1', '#!lua name=x\nreturn 1',
  '#!luax\nreturn 1', '#!lua', '#!lua flags=no-writes,\nreturn 1', '#!lua flags=\nreturn 2',
  // cjson
  'return cjson.encode({1,2,3, a=nil})', "return cjson.encode({a={b=1.5, c='x'}})", 'return cjson.encode({[1]=1, [3]=3})',
  'return cjson.encode(0.1) .. cjson.encode(1e300) .. cjson.encode(-0)', "return cjson.decode('[1,2,{\"a\":null}]')[3].a == cjson.null",
  "return cjson.decode('{')", "return cjson.encode({})", "return cjson.encode('\\0\\1\"\\\\/')", "return cjson.decode('\"\\\\u00e9\"')",
  "return cjson.decode('[1,2]')", "local t = cjson.decode('[1,2]'); t[3] = 4; return t", "return cjson.encode(1/0)",
  "return cjson.decode('{\"a\":[1,{\"b\":true}]}').a[2].b", "return cjson.encode({[1]=1,[2]=2,[100]=3})",
  "return cjson.decode('1e400')", "return cjson.encode(cjson.decode('[[[[[[[[[[1]]]]]]]]]]'))",
  // cmsgpack
  "return cmsgpack.pack({1,2,3,'a',{x=1}, 1.5, -1, 300, 70000, true})", 'return cmsgpack.unpack(cmsgpack.pack({1,2,3}))',
  "return cmsgpack.pack(0, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649)",
  "return cmsgpack.pack(0.1, 1e300, -0.5, 1/0, 2^53)", "return cmsgpack.pack(string.rep('x', 31), string.rep('y', 32), string.rep('z', 256))",
  "local t = {} for i=1,20 do t[i]=i end return cmsgpack.pack(t)", "local t = {} for i=1,20 do t['k'..i]=i end return #cmsgpack.pack(t)",
  "local t = {} t[1]=1 t[3]=3 return cmsgpack.pack(t)", "return cmsgpack.pack({})", "return cmsgpack.pack(nil, false, print)",
  "local t = {} t[1] = t return cmsgpack.pack(t)", "return {cmsgpack.unpack(cmsgpack.pack(1, 'a', {2}))}",
  "return cmsgpack.unpack('')", "return cmsgpack.unpack(string.char(0xcd))", "return cmsgpack.unpack(string.char(0xc1))",
  "return cmsgpack.unpack(string.char(0xc4, 1, 65))", "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2))}",
  "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}", "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2), 1)}",
  "return cmsgpack.pack()", "local v = cmsgpack.unpack(cmsgpack.pack({a={b={1,2}}})) return v.a.b[2]",
  "return cmsgpack.unpack(cmsgpack.pack(0.1)) == 0.1", "return tostring(cmsgpack.unpack(cmsgpack.pack(-2^63)))",
  // bit
  "return bit.band(0xff, 0x0f) .. ' ' .. bit.tohex(65535)", 'return bit.bor(1, 2, 4)', 'return bit.bxor(5, 3)',
  'return bit.lshift(1, 31)', 'return bit.rshift(-1, 28)', 'return bit.arshift(-256, 4)', 'return bit.tobit(2^32 + 5)',
  'return bit.bnot(0)', "return bit.tohex(-1, -4)", 'return bit.rol(1, 33)', 'return bit.bswap(0x12345678)',
  // struct
  "return struct.pack('>I2', 258)", "return struct.pack('<i4', -2)", "return struct.pack('>h', -2)", "return {struct.unpack('>I2', string.char(1,2))}",
  "return {struct.unpack('<i4', struct.pack('<i4', -12345))}", "return struct.pack('y', 1)", "return struct.unpack('>I4', 'ab')",
  "return struct.pack('s', 'abc')", "return {struct.unpack('s', 'abc\\0rest')}", "return struct.pack('c3', 'abcdef')",
  "return {struct.unpack('Bc0', string.char(3) .. 'abcdef')}", "return struct.pack('!4 b i4', 1, 2)", "return struct.pack('>d', 1.5)",
  "return {struct.unpack('>d', struct.pack('>d', 1.5))}", "return struct.pack('>f', 0.5)", "return struct.pack('c', 'x')",
  "return struct.pack('i3', 1)", "return struct.pack('>I8', 2^40)", "return struct.pack('x b x', 7)",
  // unpack / getn / misc 5.1
  "return select('#', unpack({1,2,3}))", 'return math.floor(3.7)', "return string.rep('x', 3)", "return ('%d'):format(7)",
  "return tostring(2^53)", 'return 7 % 3', 'return math.huge > 0', "return string.len(string.format('%5.2f', 1.234))",
]

/** FUNCTION LOAD bodies; each is loaded after FUNCTION FLUSH on both sides. */
export const kLoadCases: string[] = [
  'return 1', '#!lua\nreturn 1', '#!lua name=lib1\nreturn 1',
  "#!lua name=lib1\nredis.register_function('f1', function(keys, args) return keys[1] end)",
  "#!lua name=lib3\nredis.register_function{function_name='f3', callback=function(keys, args) return x end, flags={'no-writes'}, description='d'}",
  "#!lua name=lib4\nredis.register_function{function_name='f4', callback=function(keys, args) return 1 end, flags={'bad-flag'}}",
  "#!lua name=lib4\nredis.register_function{function_name='f4', callback=function(keys, args) error('x') end, foo=1}",
  "#!lua name=lib4\nredis.register_function('f-4!', function() end)", "#!lua name=lib4\nredis.register_function('f4')",
  "#!lua name=lib4\nredis.register_function('f4', 'x')", '#!lua name=lib4\nredis.register_function()',
  '#!lua name=lib4\nredis.register_function(1,2,3)',
  "#!lua name=lib4\nredis.register_function('f4', function() end)\nredis.register_function('f4', function() end)",
  "#!lua name=lib4\nredis.call('ping')", '#!lua name=lib4\nlocal x = {}\nx.y()', '#!lua name=lib4\nreturn +',
  '#!lua name=lib-4!\nreturn 1', '#!lua name=lib4 flags=no-writes\nreturn 1', '#!lua name=lib4 x=1\nreturn 1',
  "#!lua name=lib6\nlocal t = {} for key, v in pairs(redis) do t[#t+1] = key end error('x')",
  "#!js name=x\nreturn 1", '#!lua name=x', '#!lua name=x name=y\nreturn 1', '#!lua name=\nreturn 1',
  "#!lua name=lib11\nredis.register_function{function_name='f11', callback=function() end, flags='no-writes'}",
  "#!lua name=lib11\nredis.register_function{function_name='f11', callback=5}", "#!lua name=lib11\nredis.register_function{callback=function() end}",
  "#!lua name=lib11\nredis.register_function{function_name='f11', callback=function() end, flags={1}}",
  '#!lua name=lib11\nx = 1', "#!lua name=lib11\nredis.log(redis.LOG_WARNING, 'loading')\nredis.register_function('a', function() return 1 end)",
  "#!lua name=lib12\nredis.register_function('x', function() return 1 end)\nredis.register_function('y', function() return 2 end)",
]

/** Libraries loaded together, then FCALLs compared. */
export const kFcallLibrary = `#!lua name=mylib
local function helper(keys, args) return {keys[1] or 'nokey', args[1] or 'noarg'} end
redis.register_function('echo2', helper)
redis.register_function('getkeys', function(keys, args) return KEYS end)
redis.register_function('err', function(keys, args) error({err='x'}) end)
redis.register_function('arity', function(keys, args) return redis.call('get', 'a', 'b') end)
redis.register_function('api', function(keys, args) local t = {} for key, v in pairs(redis) do t[#t+1] = key end table.sort(t) return t end)
redis.register_function('resp3', function(keys, args) redis.setresp(3); return redis.call('hgetall', keys[1]) end)
redis.register_function('glob', function(keys, args) y = 1 end)
redis.register_function{function_name='ro', callback=function(keys, args) return 'ro' end, flags={'no-writes'}}
`;
export const kFcalls: string[][] = [
  ['echo2', '1', 'k', 'v'], ['echo2', '0'], ['getkeys', '0'], ['err', '0'], ['arity', '0'], ['api', '0'], ['resp3', '1', 'hh'],
  ['glob', '0'], ['ro', '0'], ['nofn', '0'],
];
