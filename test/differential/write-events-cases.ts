/**
 * Cases of the write-event differential (write-events.test.ts): each write command in the
 * outcomes that change which keyspace events redis-server 7.0.15 fires. `setup` runs first with
 * notifications off; only `cmd`'s events are compared. Keys sit in db 0 unless a case selects.
 */
export type Cmd = string[];

export interface EventCase {
  setup: Cmd[];
  cmd: Cmd;
  /** commands sent after cmd with the same flags (MULTI's queued commands and EXEC) */
  then?: Cmd[];
}

/** space-separated words; an array where an argument is empty */
const c = (cmd: string | Cmd, ...setup: string[]): EventCase =>
  ({ setup: setup.map((s) => s.split(' ')), cmd: typeof cmd === 'string' ? cmd.split(' ') : cmd });

const kList = 'RPUSH l a b c';
const kOne = 'RPUSH l a';
const kHash = 'HSET h f 1 g 2';
const kSet = 'SADD s a b c';
const kZset = 'ZADD z 1 a 2 b 3 c';
const kStream = 'XADD x 1-0 f 1';
const kGroup = 'XGROUP CREATE x g 0';
const kRead = 'XREADGROUP GROUP g c STREAMS x >';
const kGeo = 'GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania';
const kDumpedString = '\x00\x04v361\n\x003%Hpy\x166i';
const kDumpedList = '\x01\x01\x03a85\n\x00xl+\x13\x18t)$';

export const kEventCases: EventCase[] = [
  // strings
  c('SET k v'), c('SET k v NX'), c('SET k v NX', 'SET k old'), c('SET k v XX'), c('SET k v XX', 'SET k old'),
  c('SET k v EX 100'), c('SET k v PX 100000 GET', 'SET k old'), c('SET k v NX GET', 'SET k old'), c('SET k v NX GET'),
  c('SET k v XX GET'), c('SET k v XX GET', 'SET k old'), c('SET k v KEEPTTL', 'SET k old EX 100'),
  c('SET k v EXAT 1', 'SET k old'), c('SET k v GET', 'RPUSH k a'),
  c('MSET a 1 b 2 a 3'), c('MSETNX a 1 b 2'), c('MSETNX a 1 b 2', 'SET b x'),
  c('INCR n'), c('DECR n'), c('INCRBY n 5'), c('DECRBY n 5'), c('INCR n', 'SET n x'), c('INCRBYFLOAT n 1.5'),
  c('INCRBYFLOAT n 1', 'SET n x'),
  c('SETNX k v'), c('SETNX k v', 'SET k old'), c('SETEX k 100 v'), c('PSETEX k 100000 v'), c('SETEX k 0 v'),
  c('GETSET k v'), c('GETSET k v', 'SET k old'), c('GETDEL k'), c('GETDEL k', 'SET k old'),
  c('GETEX k'), c('GETEX k', 'SET k old'), c('GETEX k EX 100', 'SET k old'), c('GETEX k PERSIST', 'SET k old EX 100'),
  c('GETEX k PERSIST', 'SET k old'), c('GETEX k PXAT 1', 'SET k old'), c('GETEX k EX 100'),
  c('APPEND k abc'), c('APPEND k abc', 'SET k old'), c('APPEND k abc', 'RPUSH k a'),
  c('SETRANGE k 2 abc'), c(['SETRANGE', 'k', '0', ''], 'SET k old'), c(['SETRANGE', 'k', '0', '']), c('SETRANGE k 1 x', 'SET k old'),
  // keys
  c('DEL a'), c('DEL a', 'SET a 1'), c('DEL a b c', 'SET a 1', 'RPUSH c x'), c('UNLINK a b', 'SET b 1'),
  c('EXPIRE k 100', 'SET k v'), c('EXPIRE k 100'), c('EXPIRE k -1', 'SET k v'), c('EXPIRE k 100 NX', 'SET k v EX 50'),
  c('EXPIRE k 100 GT', 'SET k v EX 50'), c('PEXPIRE k 100000', 'SET k v'), c('PEXPIRE k 0', 'RPUSH k a'),
  c('EXPIREAT k 4000000000', 'SET k v'), c('EXPIREAT k 1', 'SADD k a'), c('PEXPIREAT k 4000000000000', 'SET k v'),
  c('PEXPIREAT k 1', 'SET k v'), c('PERSIST k', 'SET k v EX 100'), c('PERSIST k', 'SET k v'), c('PERSIST k'),
  c('RENAME a b', 'SET a 1'), c('RENAME a b', 'SET a 1', 'SET b 2'), c('RENAME a a', 'SET a 1'), c('RENAME a b'),
  c('RENAMENX a b', 'SET a 1'), c('RENAMENX a b', 'SET a 1', 'SET b 2'), c('RENAME a b', 'HSET a f v'),
  c('COPY a b', 'SET a 1'), c('COPY a b', 'SET a 1', 'SET b 2'), c('COPY a b REPLACE', 'SET a 1', 'SET b 2'),
  c('COPY a b DB 3', 'ZADD a 1 m'), c('COPY a b'),
  c('MOVE a 2', 'SET a 1'), c('MOVE a 2'), c('MOVE a 2', 'LPUSH a x', 'SELECT 2', 'SET a 1', 'SELECT 0'),
  c('FLUSHDB', 'SET a 1'), c('FLUSHALL', 'SET a 1'), c('FLUSHALL ASYNC'), c('SWAPDB 0 1', 'SET a 1'),
  c('SWAPDB 1 1'),
  // hashes
  c('HSET h f 1 g 2'), c('HSET h f 1', kHash), c('HMSET h f 3', kHash), c('HSET h f 1', 'SET h x'),
  c('HSETNX h f 1'), c('HSETNX h f 1', kHash), c('HDEL h f', kHash), c('HDEL h f g', kHash), c('HDEL h x', kHash),
  c('HDEL h f'), c('HINCRBY h f 2', kHash), c('HINCRBY h n 2'), c('HINCRBYFLOAT h f 1.5', kHash),
  // sets
  c('SADD s a b'), c('SADD s a', kSet), c('SADD s d', kSet), c('SREM s a', kSet), c('SREM s a b c', kSet),
  c('SREM s x', kSet), c('SPOP s', kSet), c('SPOP s', 'SADD s a'), c('SPOP s'), c('SPOP s 1', kSet),
  c('SPOP s 3', kSet), c('SPOP s 5', kSet), c('SPOP s 0', kSet),
  c('SMOVE s t a', kSet), c('SMOVE s t a', 'SADD s a'), c('SMOVE s t x', kSet), c('SMOVE s t a', kSet, 'SADD t a'),
  c('SMOVE s s a', kSet),
  c('SINTERSTORE d s t', kSet, 'SADD t b x'), c('SINTERSTORE d s t', kSet), c('SINTERSTORE d s t', kSet, 'SET d x'),
  c('SUNIONSTORE d s t', kSet), c('SUNIONSTORE d x y'), c('SUNIONSTORE d x y', 'SET d 1'),
  c('SDIFFSTORE d s t', kSet, 'SADD t a'), c('SDIFFSTORE d s s', kSet, 'SADD d q'),
  // lists
  c('LPUSH l a b'), c('RPUSH l a', kList), c('LPUSHX l a'), c('LPUSHX l x', kList), c('RPUSHX l x', kList),
  c('LPUSH l a', 'SET l x'),
  c('LPOP l', kList), c('LPOP l', kOne), c('LPOP l'), c('RPOP l', kList), c('RPOP l', kOne),
  c('LPOP l 2', kList), c('LPOP l 3', kList), c('RPOP l 5', kList), c('LPOP l 0', kList),
  c('LSET l 0 x', kList), c('LSET l 9 x', kList), c('LINSERT l BEFORE b x', kList), c('LINSERT l AFTER q x', kList),
  c('LREM l 0 a', kList), c('LREM l 0 a', 'RPUSH l a a'), c('LREM l 1 q', kList),
  c('LTRIM l 0 1', kList), c('LTRIM l 0 -1', kList), c('LTRIM l 5 9', kList), c('LTRIM l 0 1'),
  c('LMOVE l m LEFT RIGHT', kList), c('LMOVE l m RIGHT LEFT', kOne), c('LMOVE l m LEFT RIGHT'),
  c('LMOVE l l LEFT RIGHT', kList), c('LMOVE l l LEFT LEFT', kOne), c('RPOPLPUSH l m', kList, 'RPUSH m z'),
  c('RPOPLPUSH l m', kOne),
  c('LMPOP 2 x l LEFT', kList), c('LMPOP 1 l RIGHT COUNT 5', kList), c('LMPOP 1 l RIGHT COUNT 3', kList),
  c('LMPOP 2 x y LEFT'),
  // the blocking pops with data present (served at once) and timing out (nothing fires)
  c('BLPOP x l 0', kList), c('BRPOP l 0', kOne), c('BLPOP x 0.01'), c('BLMPOP 0 2 x l RIGHT COUNT 2', kList),
  c('BLMPOP 0 1 l LEFT COUNT 5', kList), c('BLMOVE l m LEFT RIGHT 0', kOne), c('BRPOPLPUSH l m 0', kList),
  c('BRPOPLPUSH l m 0.01'),
  // sorted sets
  c('ZADD z 1 a'), c('ZADD z 1 a', kZset), c('ZADD z 5 a', kZset), c('ZADD z CH 5 a 1 b', kZset),
  c('ZADD z NX 5 a', kZset), c('ZADD z XX 5 q', kZset), c('ZADD z XX 5 a', kZset), c('ZADD z INCR 2 a', kZset),
  c('ZADD z GT 0 a', kZset), c('ZADD z NX INCR 2 a', kZset), c('ZADD z 1 a', 'SET z x'),
  c('ZINCRBY z 2 a', kZset), c('ZINCRBY z 2 q'),
  c('ZREM z a', kZset), c('ZREM z a b c', kZset), c('ZREM z q', kZset),
  c('ZRANGESTORE d z 0 1', kZset), c('ZRANGESTORE d z 5 9', kZset), c('ZRANGESTORE d z 5 9', kZset, 'SET d x'),
  c('ZPOPMIN z', kZset), c('ZPOPMIN z', 'ZADD z 1 a'), c('ZPOPMAX z 2', kZset), c('ZPOPMAX z 3', kZset),
  c('ZPOPMIN z'), c('ZPOPMIN z 0', kZset),
  c('ZMPOP 2 q z MIN', kZset), c('ZMPOP 1 z MAX COUNT 9', kZset), c('ZMPOP 1 q MIN'),
  c('BZPOPMIN q z 0', kZset), c('BZPOPMAX z 0', 'ZADD z 1 a'), c('BZPOPMIN q 0.01'), c('BZMPOP 0 1 z MAX COUNT 2', kZset),
  c('BZMPOP 0 1 z MIN COUNT 5', kZset),
  c('ZREMRANGEBYRANK z 0 0', kZset), c('ZREMRANGEBYRANK z 0 -1', kZset), c('ZREMRANGEBYRANK z 5 9', kZset),
  c('ZREMRANGEBYSCORE z 1 2', kZset), c('ZREMRANGEBYSCORE z -inf +inf', kZset), c('ZREMRANGEBYLEX z [a [a', kZset),
  c('ZREMRANGEBYLEX z - +', kZset), c('ZREMRANGEBYLEX z [x [y', kZset),
  c('ZUNIONSTORE d 2 z y', kZset), c('ZINTERSTORE d 2 z y', kZset), c('ZINTERSTORE d 2 z y', kZset, 'SET d x'),
  c('ZDIFFSTORE d 1 z', kZset), c('ZDIFFSTORE d 2 z z', kZset, 'ZADD d 1 q'), c('ZUNIONSTORE d 1 z WEIGHTS 2', kZset),
  // scripts: each redis.call write reports as the command would, after the call committed;
  // a Lua error keeps (and reports) what ran before it; library changes fire nothing
  ...kScriptCases(),
  // streams
  c('XADD x 1-0 f 1'), c('XADD x NOMKSTREAM 1-0 f 1'), c('XADD x MAXLEN 1 2-0 f 1', kStream), c('XADD x MAXLEN 5 2-0 f 1', kStream),
  c('XADD x 1-0 f 1', 'SET x s'), c('XTRIM x MAXLEN 0', kStream), c('XTRIM x MAXLEN 5', kStream), c('XDEL x 1-0', kStream),
  c('XDEL x 9-0', kStream), c('XSETID x 5-0', kStream), c('XGROUP CREATE x g 0', kStream), c('XGROUP CREATE x g 0 MKSTREAM'),
  c('XGROUP SETID x g 0', kStream, kGroup), c('XGROUP DESTROY x g', kStream, kGroup), c('XGROUP DESTROY x g', kStream),
  c('XGROUP CREATECONSUMER x g c', kStream, kGroup), c('XGROUP CREATECONSUMER x g c', kStream, kGroup, 'XGROUP CREATECONSUMER x g c'),
  c('XGROUP DELCONSUMER x g c', kStream, kGroup, kRead), c('XGROUP DELCONSUMER x g c', kStream, kGroup),
  c('XREADGROUP GROUP g c STREAMS x >', kStream, kGroup), c('XREADGROUP GROUP g c STREAMS x >', kStream, kGroup, kRead),
  c('XACK x g 1-0', kStream, kGroup, kRead), c('XCLAIM x g d 0 1-0', kStream, kGroup, kRead),
  c('XAUTOCLAIM x g d 0 0', kStream, kGroup, kRead), c('XAUTOCLAIM x g c 0 0', kStream, kGroup, kRead),
  // HyperLogLog
  c('PFADD h a b'), c('PFADD h a', 'PFADD h a'), c('PFADD h'), c('PFADD h', 'PFADD h'), c('PFADD h a', 'SET h x'),
  c('PFMERGE d h'), c('PFMERGE d', 'PFADD d a'), c('PFMERGE d h x', 'PFADD h a', 'PFADD x b'), c('PFMERGE d h', 'PFADD h a', 'SET d x'),
  c('PFDEBUG TODENSE h', 'PFADD h a'), c('PFDEBUG GETREG h', 'PFADD h a'),
  // geo
  c(`${kGeo}`), c('GEOADD g 13.361389 38.115556 Palermo', kGeo), c('GEOADD g CH 13 38 Palermo', kGeo),
  c('GEOADD g NX 13 38 Palermo', kGeo), c('GEOADD g XX 1 1 q', kGeo), c('GEOADD g 1 1 q', 'SET g x'),
  c('GEORADIUS g 15 37 200 km', kGeo), c('GEORADIUS g 15 37 200 km STORE d', kGeo), c('GEORADIUS g 15 37 200 km STOREDIST d', kGeo),
  c('GEORADIUS g 0 0 1 km STORE d', kGeo, 'SET d x'), c('GEORADIUS g 0 0 1 km STORE d', kGeo), c('GEORADIUS q 0 0 1 km STORE d', 'SET d x'),
  c('GEORADIUS g 15 37 200 km COUNT 1 STORE d', kGeo), c('GEORADIUSBYMEMBER g Palermo 300 km STORE d', kGeo),
  c('GEORADIUSBYMEMBER g Palermo 300 km', kGeo), c('GEORADIUSBYMEMBER g Palermo 1 m STOREDIST d', kGeo, 'SET d x'),
  c('GEOSEARCHSTORE d g FROMMEMBER Palermo BYRADIUS 300 km', kGeo), c('GEOSEARCHSTORE d g FROMLONLAT 0 0 BYBOX 1 1 km', kGeo, 'SET d x'),
  c('GEOSEARCHSTORE d q FROMLONLAT 0 0 BYRADIUS 1 km', 'SET d x'), c('GEOSEARCHSTORE d g FROMLONLAT 0 0 BYRADIUS 1 km', kGeo),
  // SORT
  c('SORT l', kList), c('SORT l STORE d', kList), c('SORT l STORE d', kList, 'SET d x'), c('SORT q STORE d', 'SET d x'),
  c('SORT q STORE d'), c('SORT s ALPHA LIMIT 0 1 STORE d', kSet), c('SORT z BY nosort STORE d', kZset),
  // bitmaps
  c('SETBIT b 7 1'), c('SETBIT b 7 1', 'SETBIT b 7 1'), c('SETBIT b 1 1', 'RPUSH b x'),
  c('BITOP AND d a b', 'SET a x', 'SET b y'), c('BITOP NOT d a', 'SET a x'), c('BITOP OR d a b'), c('BITOP OR d a b', 'SET d x'),
  c('BITOP XOR d a l', 'SET a x', 'RPUSH l x'),
  c('BITFIELD b SET u8 0 1'), c('BITFIELD b GET u8 0', 'SET b x'), c('BITFIELD b'), c('BITFIELD b OVERFLOW FAIL INCRBY u2 0 9'),
  c('BITFIELD b INCRBY i8 0 1 GET u4 0', 'SET b x'), c('BITFIELD_RO b GET u8 0', 'SET b x'),
  c('SETBIT b 0 0', 'SET b x'), c('SETBIT b 100 0', 'SET b x'), c('SETBIT b 1 0', 'SET b x'), c('SETBIT b 0 0'),
  c('BITFIELD b SET u8 0 120', 'SET b x'), c('BITFIELD b SET u8 0 121', 'SET b x'), c('BITFIELD b SET u8 8 0', 'SET b x'),
  c('BITFIELD b OVERFLOW SAT INCRBY u8 0 1', 'SET b \xff'), c('BITFIELD b INCRBY u8 0 256', 'SET b x'),
  c('BITFIELD b OVERFLOW FAIL INCRBY u8 0 300 SET i8 0 -1', 'SET b x'),
  // DUMP payloads of 'v361' and of the list [a85] (their bytes are all ASCII: the cases are strings)
  c(['RESTORE', 'k', '0', kDumpedString]), c(['RESTORE', 'k', '0', kDumpedString], 'SET k x'),
  c(['RESTORE', 'k', '0', kDumpedList, 'REPLACE'], 'SET k x'), c(['RESTORE', 'k', '100000', kDumpedList]),
  c(['RESTORE', 'k', '1', kDumpedString, 'REPLACE', 'ABSTTL'], 'SET k x'), c(['RESTORE', 'k', '1', kDumpedString, 'ABSTTL']),
];

function kScriptCases(): EventCase[] {
  const lib = "#!lua name=evlib\nredis.register_function('evf', function(keys, args) " +
    "redis.call('set', keys[1], args[1]); return redis.call('rpush', keys[2], 'a', 'b') end)";
  const withLib = [['FUNCTION', 'FLUSH'], ['FUNCTION', 'LOAD', lib]];
  return [
    { setup: [['SET', 'k', '1']], cmd: ['EVAL', "redis.call('incr', KEYS[1]); redis.call('set', KEYS[2], 'v', 'EX', '100'); " +
      "redis.call('del', KEYS[3]); return redis.call('lpush', KEYS[3], 'a')", '3', 'k', 's', 'l'] },
    { setup: [], cmd: ['EVAL', "redis.call('set', KEYS[1], 'x'); redis.call('lpush', KEYS[1], 'y')", '1', 'k'] },
    { setup: [], cmd: ['EVAL', "redis.call('set', KEYS[1], 'x'); return redis.pcall('lpush', KEYS[1], 'y')", '1', 'k'] },
    { setup: [['RPUSH', 'l', 'a']], cmd: ['EVAL', "return redis.call('lpop', KEYS[1])", '1', 'l'] },
    { setup: withLib, cmd: ['FCALL', 'evf', '2', 'k', 'l', 'v'] },
    { setup: [['FUNCTION', 'FLUSH']], cmd: ['FUNCTION', 'LOAD', lib] },
    { setup: withLib, cmd: ['FUNCTION', 'DELETE', 'evlib'] },
    { setup: withLib, cmd: ['FUNCTION', 'FLUSH'] },
    { setup: withLib, cmd: ['FUNCTION', 'RESTORE', 'not a payload'] },
  ];
}
