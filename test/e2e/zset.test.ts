/**
 * Sorted-set commands against the real server and Postgres: tables (collection-rows.ts), one at
 * a time and pipelined; then score formatting, random members, ZSCAN, expiry and RESP3 shapes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RawClient } from './resp-client';
import { E, hasCommand, kNotFloat, kNotInt, kSyntax, kWrongType, runRows, sleep, startTarget, type Row, type Target } from './collection-rows';

let target: Target;
before(async () => { target = await startTarget(); });
after(async () => { await target.stop(); });

const kPositive = E('ERR value is out of range, must be positive');
const kRangeFloat = E('ERR min or max is not a float');
const kRangeLex = E('ERR min or max not valid string range item');

const tables: Record<string, Row[]> = {
  'ZADD options and replies': [
    [['ZADD', 'z', '1', 'a', '2', 'b', '3', 'c'], 3],
    [['ZADD', 'z', '1', 'a', '5', 'd'], 1],
    [['ZADD', 'z', 'CH', '10', 'a', '5', 'd', '6', 'e'], 2],
    [['ZADD', 'z', 'NX', '100', 'a', '7', 'f'], 1],
    [['ZADD', 'z', 'XX', 'CH', '100', 'a', '7', 'g'], 1],
    [['ZADD', 'z', 'GT', 'CH', '50', 'a', '200', 'b'], 1],
    [['ZADD', 'z', 'LT', 'CH', '50', 'a', '300', 'b'], 1],
    [['ZADD', 'z', 'XX', 'GT', '1', 'c'], 0],
    [['ZSCORE', 'z', 'a'], '50'],
    [['ZSCORE', 'z', 'b'], '200'],
    [['ZSCORE', 'z', 'g'], null],
    [['ZADD', 'z', 'INCR', '5', 'a'], '55'],
    [['ZADD', 'z', 'NX', 'INCR', '5', 'a'], null],
    [['ZADD', 'z', 'XX', 'INCR', '5', 'nope'], null],
    [['ZADD', 'z', 'GT', 'INCR', '-5', 'a'], null],
    [['ZADD', 'z', 'CH', '1', 'x', '2', 'x'], 2],
    [['ZSCORE', 'z', 'x'], '2'],
    [['ZADD', 'z', 'NX', 'XX', '1', 'a'], E('ERR XX and NX options at the same time are not compatible')],
    [['ZADD', 'z', 'GT', 'LT', '1', 'a'], E('ERR GT, LT, and/or NX options at the same time are not compatible')],
    [['ZADD', 'z', 'NX', 'GT', '1', 'a'], E('ERR GT, LT, and/or NX options at the same time are not compatible')],
    [['ZADD', 'z', 'INCR', '1', 'a', '2', 'b'], E('ERR INCR option supports a single increment-element pair')],
    [['ZADD', 'z', '1', 'a', '2'], kSyntax],
    [['ZADD', 'z', 'NX', 'CH'], kSyntax],
    [['ZADD', 'z', 'NX'], E("ERR wrong number of arguments for 'zadd' command")],
    [['ZADD', 'z', 'CH', 'NX', '1'], kSyntax],
    [['ZADD', 'z', 'x', 'a'], kNotFloat],
    [['ZADD', 'z', 'nan', 'a'], kNotFloat],
    [['ZADD', 'z', ' 1', 'a'], kNotFloat],
    [['ZADD', 'z', '1e400', 'a'], kNotFloat],
    [['ZADD', 'xx', 'XX', '1', 'a'], 0],
    [['EXISTS', 'xx'], 0],
    [['ZCARD', 'z'], 7],
  ],
  // ZPOPMIN/ZPOPMAX start at the last member popped (schema v5 pop bounds): whatever is written
  // past it afterwards (ZADD, ZINCRBY, a lower score for a member) must still come out first
  'pops after writes beyond the last member popped': [
    [['ZADD', 'q', '1', 'b', '2', 'c', '3', 'd', '4', 'e', '5', 'f'], 5],
    [['ZPOPMIN', 'q'], ['b', '1']],
    [['ZPOPMAX', 'q'], ['f', '5']],
    [['ZADD', 'q', '1', 'a', '5', 'g'], 2], // same scores as the popped, members beyond them
    [['ZPOPMIN', 'q'], ['a', '1']],
    [['ZPOPMAX', 'q'], ['g', '5']],
    [['ZADD', 'q', '1', 'c'], 0], // a member moved below the bound
    [['ZINCRBY', 'q', '10', 'd'], '13'], // and one above
    [['ZPOPMIN', 'q', '2'], ['c', '1', 'e', '4']],
    [['ZADD', 'q', '-inf', 'x', 'inf', 'y', '0', ''], 3],
    [['ZPOPMAX', 'q', '2'], ['y', 'inf', 'd', '13']],
    [['ZPOPMIN', 'q'], ['x', '-inf']],
    [['ZADD', 'q', 'GT', 'CH', '-1', ''], 0],
    [['ZADD', 'q', 'LT', 'CH', '-1', ''], 1],
    [['ZMPOP', '1', 'q', 'MIN', 'COUNT', '9'], ['q', [['', '-1']]]],
    [['EXISTS', 'q'], 0],
    [['ZADD', 'q', '7', 'z'], 1], // a new key: no bounds left from the old one
    [['ZPOPMIN', 'q'], ['z', '7']],
  ],
  'scores: formatting, infinities, ZINCRBY': [
    [['ZADD', 'z', '1.1', 'a', '-0', 'b', '1e17', 'c', '0.1', 'd', 'inf', 'e', '-inf', 'f', '0x10', 'g', '1e-5', 'h'], 8],
    [['ZSCORE', 'z', 'a'], '1.1000000000000001'],
    [['ZSCORE', 'z', 'b'], '0'],
    [['ZSCORE', 'z', 'c'], '1e+17'],
    [['ZSCORE', 'z', 'd'], '0.10000000000000001'],
    [['ZSCORE', 'z', 'e'], 'inf'],
    [['ZSCORE', 'z', 'f'], '-inf'],
    [['ZSCORE', 'z', 'g'], '16'],
    [['ZSCORE', 'z', 'h'], '1.0000000000000001e-05'],
    [['ZMSCORE', 'z', 'a', 'nope', 'e'], ['1.1000000000000001', null, 'inf']],
    [['ZMSCORE', 'nokey', 'a'], [null]],
    [['ZINCRBY', 'z', '1', 'e'], 'inf'],
    [['ZINCRBY', 'z', '-inf', 'e'], E('ERR resulting score is not a number (NaN)')],
    [['ZINCRBY', 'z', 'x', 'e'], kNotFloat],
    [['ZINCRBY', 'z', '0.5', 'new'], '0.5'],
    [['ZADD', 'big', '1e308', 'a'], 1],
    [['ZINCRBY', 'big', '1e308', 'a'], 'inf'],
    [['ZINCRBY', 'big', '-1e308', 'b'], '-1e+308'],
    [['ZINCRBY', 'big', '-1e308', 'b'], '-inf'],
  ],
  'ZRANGE family: ranks, scores, lex, REV, LIMIT': [
    [['ZADD', 'z', '1', 'a', '2', 'b', '3', 'c', '4', 'd', '4', 'dd'], 5],
    [['ZRANGE', 'z', '0', '-1'], ['a', 'b', 'c', 'd', 'dd']],
    [['ZRANGE', 'z', '1', '2', 'WITHSCORES'], ['b', '2', 'c', '3']],
    [['ZRANGE', 'z', '-2', '-1', 'REV'], ['b', 'a']],
    [['ZREVRANGE', 'z', '0', '1', 'WITHSCORES'], ['dd', '4', 'd', '4']],
    [['ZRANGE', 'z', '(1', '3', 'BYSCORE'], ['b', 'c']],
    [['ZRANGE', 'z', '+inf', '(3', 'BYSCORE', 'REV'], ['dd', 'd']],
    [['ZRANGE', 'z', '-inf', '+inf', 'BYSCORE', 'LIMIT', '1', '2'], ['b', 'c']],
    [['ZRANGE', 'z', '-inf', '+inf', 'BYSCORE', 'LIMIT', '-1', '2'], []],
    [['ZRANGE', 'z', '-inf', '+inf', 'BYSCORE', 'LIMIT', '3', '-1'], ['d', 'dd']],
    [['ZRANGEBYSCORE', 'z', '2', '(4', 'WITHSCORES'], ['b', '2', 'c', '3']],
    [['ZRANGEBYSCORE', 'z', '(4', '+inf'], []],
    [['ZRANGEBYSCORE', 'z', '(+inf', '+inf'], []],
    [['ZRANGEBYSCORE', 'z', '5', '1'], []],
    [['ZREVRANGEBYSCORE', 'z', '4', '2', 'LIMIT', '0', '2'], ['dd', 'd']],
    [['ZRANGEBYSCORE', 'z', 'x', '1'], kRangeFloat],
    [['ZRANGEBYSCORE', 'z', '1', '2', 'REV'], kSyntax],
    [['ZRANGE', 'z', '0', '1', 'LIMIT', '0', '1'], E('ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX')],
    [['ZRANGE', 'z', '-', '+', 'BYLEX', 'WITHSCORES'], E('ERR syntax error, WITHSCORES not supported in combination with BYLEX')],
    [['ZRANGE', 'z', '0', '1', 'BYSCORE', 'BYLEX'], kSyntax],
    [['ZRANGE', 'z', 'x', '1'], kNotInt],
    [['ZRANGE', 'nokey', '0', '-1'], []],
    [['ZADD', 'lex', '0', 'a', '0', 'b', '0', 'c', '0', 'd', '0', 'e'], 5],
    [['ZRANGEBYLEX', 'lex', '-', '+'], ['a', 'b', 'c', 'd', 'e']],
    [['ZRANGEBYLEX', 'lex', '[b', '(d'], ['b', 'c']],
    [['ZRANGEBYLEX', 'lex', '(b', '[d'], ['c', 'd']],
    [['ZREVRANGEBYLEX', 'lex', '+', '(c'], ['e', 'd']],
    [['ZRANGE', 'lex', '[e', '[b', 'BYLEX', 'REV', 'LIMIT', '1', '1'], ['d']],
    [['ZRANGEBYLEX', 'lex', '+', '-'], []],
    [['ZRANGEBYLEX', 'lex', 'a', '+'], kRangeLex],
    [['ZLEXCOUNT', 'lex', '[b', '+'], 4],
    [['ZLEXCOUNT', 'lex', '(b', '(c'], 0],
    [['ZLEXCOUNT', 'lex', '-', '+'], 5],
    [['ZCOUNT', 'z', '(1', '4'], 4],
    [['ZCOUNT', 'z', '-inf', '+inf'], 5],
    [['ZCOUNT', 'z', '4', '(4'], 0],
    [['ZCOUNT', 'nokey', '0', '1'], 0],
    [['ZRANK', 'z', 'c'], 2],
    [['ZREVRANK', 'z', 'c'], 2],
    [['ZRANK', 'z', 'dd'], 4],
    [['ZRANK', 'z', 'nope'], null],
    [['ZRANK', 'nokey', 'a'], null],
  ],
  'ZRANGESTORE, ZPOP*, ZMPOP, ZREM, ZREMRANGE*': [
    [['ZADD', 'z', '1', 'a', '2', 'b', '3', 'c', '4', 'd', '5', 'e'], 5],
    [['SET', 'dst', 'string'], 'OK'],
    [['ZRANGESTORE', 'dst', 'z', '1', '3'], 3],
    [['ZRANGE', 'dst', '0', '-1', 'WITHSCORES'], ['b', '2', 'c', '3', 'd', '4']],
    [['ZRANGESTORE', 'dst', 'z', '(4', '+inf', 'BYSCORE'], 1],
    [['ZRANGESTORE', 'dst', 'z', '10', '20'], 0],
    [['EXISTS', 'dst'], 0],
    [['ZRANGESTORE', 'dst', 'z', '0', '-1', 'WITHSCORES'], kSyntax],
    [['ZPOPMIN', 'z'], ['a', '1']],
    [['ZPOPMAX', 'z', '2'], ['e', '5', 'd', '4']],
    [['ZPOPMIN', 'z', '0'], []],
    [['ZPOPMIN', 'z', '-1'], kPositive],
    [['ZPOPMIN', 'z', '1', '2'], kSyntax],
    [['ZPOPMIN', 'nokey'], []],
    [['ZMPOP', '2', 'nokey', 'z', 'MAX'], ['z', [['c', '3']]]],
    [['ZMPOP', '1', 'z', 'MIN', 'COUNT', '5'], ['z', [['b', '2']]]],
    [['EXISTS', 'z'], 0],
    [['ZMPOP', '1', 'z', 'MIN'], null],
    [['ZMPOP', '1', 'z', 'MIDDLE'], kSyntax],
    [['ZMPOP', '0', 'z', 'MIN'], E('ERR numkeys should be greater than 0')],
    [['ZADD', 'r', '1', 'a', '2', 'b', '3', 'c', '4', 'd', '5', 'e'], 5],
    [['ZREM', 'r', 'a', 'a', 'nope'], 1],
    [['ZREMRANGEBYRANK', 'r', '-1', '-1'], 1],
    [['ZREMRANGEBYSCORE', 'r', '(2', '4'], 2],
    [['ZADD', 'lex', '0', 'lexa', '0', 'lexb', '0', 'lexc'], 3],
    [['ZREMRANGEBYLEX', 'lex', '[lexa', '(lexc'], 2],
    [['ZRANGE', 'lex', '0', '-1'], ['lexc']],
    [['ZADD', 'r', '0', 'lexb'], 1],
    [['ZRANGE', 'r', '0', '-1'], ['lexb', 'b']],
    [['ZREMRANGEBYSCORE', 'r', 'x', '1'], kRangeFloat],
    [['ZREMRANGEBYLEX', 'r', 'x', '+'], kRangeLex],
    [['ZREMRANGEBYRANK', 'r', 'x', '1'], kNotInt],
    [['ZREMRANGEBYRANK', 'r', '0', '-1'], 2],
    [['EXISTS', 'r'], 0],
  ],
  'ZUNION ZINTER ZDIFF and their STORE forms (sets count as score 1)': [
    [['ZADD', 'a', '1', 'x', '2', 'y', '3', 'z'], 3],
    [['ZADD', 'b', '10', 'y', '20', 'z', '30', 'w'], 3],
    [['SADD', 's', 'z', 'v'], 2],
    [['ZUNION', '2', 'a', 'b', 'WITHSCORES'], ['x', '1', 'y', '12', 'z', '23', 'w', '30']],
    [['ZUNION', '3', 'a', 'b', 's', 'AGGREGATE', 'MAX', 'WITHSCORES'], ['v', '1', 'x', '1', 'y', '10', 'z', '20', 'w', '30']],
    [['ZINTER', '2', 'a', 'b', 'WEIGHTS', '2', '0.5', 'WITHSCORES'], ['y', '9', 'z', '16']],
    [['ZINTER', '3', 'a', 'b', 's', 'AGGREGATE', 'MIN', 'WITHSCORES'], ['z', '1']],
    [['ZINTER', '2', 'a', 'a', 'WITHSCORES'], ['x', '2', 'y', '4', 'z', '6']],
    [['ZINTER', '2', 'a', 'nokey'], []],
    [['ZDIFF', '2', 'a', 'b', 'WITHSCORES'], ['x', '1']],
    [['ZDIFF', '2', 'a', 'a'], []],
    [['ZUNION', '2', 'a', 'b', 'WEIGHTS', 'inf', '0', 'WITHSCORES'], ['w', '0', 'x', 'inf', 'y', 'inf', 'z', 'inf']],
    [['ZUNIONSTORE', 'd', '2', 'a', 'b'], 4],
    [['ZRANGE', 'd', '0', '-1', 'WITHSCORES'], ['x', '1', 'y', '12', 'z', '23', 'w', '30']],
    [['ZINTERSTORE', 'd', '2', 'a', 'b', 'AGGREGATE', 'MAX'], 2],
    [['ZRANGE', 'd', '0', '-1', 'WITHSCORES'], ['y', '10', 'z', '20']],
    [['ZDIFFSTORE', 'd', '2', 'b', 'a'], 1],
    [['ZRANGE', 'd', '0', '-1', 'WITHSCORES'], ['w', '30']],
    [['ZINTERSTORE', 'd', '2', 'a', 'nokey'], 0],
    [['EXISTS', 'd'], 0],
    [['ZUNION', '0', 'a'], E("ERR at least 1 input key is needed for 'zunion' command")],
    [['ZUNIONSTORE', 'd', '0', 'a'], E("ERR at least 1 input key is needed for 'zunionstore' command")],
    [['ZUNION', '3', 'a', 'b'], kSyntax],
    [['ZUNION', 'x', 'a'], kNotInt],
    [['ZUNION', '2', 'a', 'b', 'WEIGHTS', '1', 'x'], E('ERR weight value is not a float')],
    [['ZUNION', '2', 'a', 'b', 'AGGREGATE', 'AVG'], kSyntax],
    [['ZDIFF', '2', 'a', 'b', 'WEIGHTS', '1', '2'], kSyntax],
    [['ZUNIONSTORE', 'd', '2', 'a', 'b', 'WITHSCORES'], kSyntax],
  ],
  'WRONGTYPE, and option errors after it': [
    [['SET', 'str', 'v'], 'OK'],
    [['RPUSH', 'l', 'a'], 1],
    [['ZADD', 'z', '1', 'a'], 1],
    [['ZADD', 'str', '1', 'a'], kWrongType],
    [['ZADD', 'str', 'x', 'a'], kNotFloat],
    [['ZINCRBY', 'l', '1', 'a'], kWrongType],
    [['ZREM', 'str', 'a'], kWrongType],
    [['ZCARD', 'l'], kWrongType],
    [['ZSCORE', 'str', 'a'], kWrongType],
    [['ZMSCORE', 'str', 'a'], kWrongType],
    [['ZRANK', 'str', 'a'], kWrongType],
    [['ZCOUNT', 'str', '0', '1'], kWrongType],
    [['ZCOUNT', 'str', 'x', '1'], kRangeFloat],
    [['ZRANGE', 'str', '0', '-1'], kWrongType],
    [['ZRANGESTORE', 'd', 'str', '0', '-1'], kWrongType],
    [['ZPOPMIN', 'str'], kWrongType],
    [['ZPOPMIN', 'str', '0'], kWrongType],
    [['ZMPOP', '2', 'nokey', 'str', 'MIN'], kWrongType],
    [['ZREMRANGEBYRANK', 'str', '0', '1'], kWrongType],
    [['ZRANDMEMBER', 'str'], kWrongType],
    [['ZSCAN', 'str', '0'], kWrongType],
    [['ZUNION', '2', 'z', 'str'], kWrongType],
    [['ZUNION', '2', 'z', 'str', 'BOGUS'], kWrongType],
    [['ZUNION', '2', 'z', 'nokey', 'BOGUS'], kSyntax],
    [['ZINTERSTORE', 'd', '2', 'z', 'l'], kWrongType],
    [['GET', 'z'], kWrongType],
    [['LPUSH', 'z', 'a'], kWrongType],
    [['SET', 'z', 'now a string'], 'OK'],
    [['ZSCORE', 'z', 'a'], kWrongType],
    [['DEL', 'z'], 1],
    [['ZADD', 'z', '2', 'b'], 1],
    [['ZRANGE', 'z', '0', '-1', 'WITHSCORES'], ['b', '2']],
  ],
  'ZRANDMEMBER and ZSCAN arguments': [
    [['ZRANDMEMBER', 'nokey'], null],
    [['ZRANDMEMBER', 'nokey', '2'], []],
    [['ZADD', 'z', '1.5', 'a'], 1],
    [['ZRANDMEMBER', 'z'], 'a'],
    [['ZRANDMEMBER', 'z', '3', 'WITHSCORES'], ['a', '1.5']],
    [['ZRANDMEMBER', 'z', '-2', 'WITHSCORES'], ['a', '1.5', 'a', '1.5']],
    [['ZRANDMEMBER', 'z', '1', 'bogus'], kSyntax],
    [['ZSCAN', 'z', '0'], ['0', ['a', '1.5']]],
    [['ZSCAN', 'z', '0', 'MATCH', 'x*'], ['0', []]],
    [['ZSCAN', 'z', 'x'], E('ERR invalid cursor')],
  ],
};

describe('sorted-set commands, one at a time', () => {
  for (const [name, rows] of Object.entries(tables)) it(name, () => runRows(target.port, rows, false));
});

describe('sorted-set commands, pipelined (one write)', () => {
  for (const [name, rows] of Object.entries(tables)) it(name, () => runRows(target.port, rows, true));
});

describe('sorted sets: ranks at scale, random members, scans, time, RESP3', () => {
  it('ranks, ranges and pops agree with a sorted model over 500 members with tied scores', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('DEL', 'big');
      const members = Array.from({ length: 500 }, (_, i) => ({ m: `m${String(i).padStart(3, '0')}`, s: (i * 7919) % 50 }));
      await c.call('ZADD', 'big', ...members.flatMap((x) => [String(x.s), x.m]));
      const sorted = [...members].sort((a, b) => a.s - b.s || (a.m < b.m ? -1 : a.m > b.m ? 1 : 0));
      for (const k of [0, 1, 137, 250, 499]) {
        assert.equal(await c.call('ZRANK', 'big', sorted[k].m), k);
        assert.equal(await c.call('ZREVRANK', 'big', sorted[k].m), 499 - k);
      }
      assert.deepEqual(await c.call('ZRANGE', 'big', '100', '104'), sorted.slice(100, 105).map((x) => x.m));
      assert.deepEqual(await c.call('ZRANGE', 'big', '10', '(12', 'BYSCORE', 'LIMIT', '3', '4'),
        sorted.filter((x) => x.s >= 10 && x.s < 12).slice(3, 7).map((x) => x.m));
      assert.equal(await c.call('ZCOUNT', 'big', '(10', '20'), sorted.filter((x) => x.s > 10 && x.s <= 20).length);
      assert.deepEqual(await c.call('ZPOPMIN', 'big', '3'), sorted.slice(0, 3).flatMap((x) => [x.m, String(x.s)]));
      assert.equal(await c.call('ZCARD', 'big'), 497);
    } finally {
      c.close();
    }
  });

  it('ZRANDMEMBER and ZSCAN cover the set', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('DEL', 'r');
      await c.call('ZADD', 'r', ...Array.from({ length: 200 }, (_, i) => [String(i / 4), `m${i}`]).flat());
      const picks = (await c.call('ZRANDMEMBER', 'r', '50', 'WITHSCORES')) as string[];
      assert.equal(picks.length, 100);
      for (let i = 0; i < picks.length; i += 2) assert.equal(Number(picks[i + 1]), Number(picks[i].slice(1)) / 4);
      const seen = new Set<string>();
      let cursor = '0';
      do {
        const [next, items] = (await c.call('ZSCAN', 'r', cursor, 'COUNT', '15')) as [string, string[]];
        for (let i = 0; i < items.length; i += 2) seen.add(items[i]);
        cursor = next;
      } while (cursor !== '0');
      assert.equal(seen.size, 200);
    } finally {
      c.close();
    }
  });

  it('a sorted-set write on an expired key starts a fresh one', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('DEL', 'k', 'e');
      assert.equal(await c.call('SET', 'k', 'v', 'PX', '100'), 'OK');
      assert.equal(await c.call('ZADD', 'e', '1', 'a'), 1);
      const pexpire = await hasCommand(c, 'pexpire');
      if (pexpire) assert.equal(await c.call('PEXPIRE', 'e', '100'), 1);
      await sleep(250);
      assert.equal(await c.call('ZADD', 'k', 'XX', '1', 'x'), 0);
      assert.equal(await c.call('ZINCRBY', 'k', '2', 'x'), '2');
      assert.deepEqual(await c.call('ZRANGE', 'k', '0', '-1', 'WITHSCORES'), ['x', '2']);
      if (pexpire) {
        assert.equal(await c.call('ZCARD', 'e'), 0);
        assert.deepEqual(await c.call('ZUNION', '1', 'e'), []);
        assert.equal(await c.call('ZADD', 'e', '3', 'c'), 1);
        assert.deepEqual(await c.call('ZRANGE', 'e', '0', '-1'), ['c']);
      }
    } finally {
      c.close();
    }
  });

  it('RESP3: scores are doubles, WITHSCORES ranges are pairs, ZPOPMIN without count is flat', async () => {
    const c = await RawClient.connect(target.port);
    try {
      await c.call('HELLO', '3');
      await c.call('DEL', 'z3');
      await c.call('ZADD', 'z3', '1.5', 'a', '2', 'b', '3', 'c');
      assert.deepEqual(await c.call('ZSCORE', 'z3', 'a'), { double: '1.5' });
      assert.deepEqual(await c.call('ZMSCORE', 'z3', 'b', 'x'), [{ double: '2' }, null]);
      assert.deepEqual(await c.call('ZRANGE', 'z3', '0', '0', 'WITHSCORES'), [['a', { double: '1.5' }]]);
      assert.deepEqual(await c.call('ZINCRBY', 'z3', '1', 'a'), { double: '2.5' });
      assert.deepEqual(await c.call('ZPOPMIN', 'z3'), ['b', { double: '2' }]);
      assert.deepEqual(await c.call('ZPOPMAX', 'z3', '1'), [['c', { double: '3' }]]);
      assert.deepEqual(await c.call('ZMPOP', '1', 'z3', 'MIN'), ['z3', [['a', { double: '2.5' }]]]);
      assert.equal(await c.call('ZMPOP', '1', 'z3', 'MIN'), null);
    } finally {
      c.close();
    }
  });
});
