/**
 * Differential: sorted-set commands against redis-server 7.0 in four connection patterns
 * (collections-compare.ts). Scores include ±inf, -0, 1.1 (formatted %.17g) and hex; lex commands
 * run only on keys whose scores are all 0 (Redis leaves lex ranges over mixed scores undefined).
 * ZRANDMEMBER is compared by size; the rest byte for byte (ZSCAN too: every key fits a listpack,
 * which Redis sends whole in score order).
 */
import { differential, exact, norm, type CollectionFamily, type Step } from './collections-compare';
import type { Rng } from './prng';

// no -0 and no member over 64 bytes: Redis prints -0 as "0" or "-0" and ZSCAN's 1e17 as
// "100000000000000000" or "1e+17" depending on its internal encoding (listpack or skiplist)
const kScores = ['0', '1', '2', '-1', '1.5', '0.5', '3', '10', 'inf', '-inf', '+inf', '1e17', '1.1', '0x10', '2.5e-3'];
const kBadScores = ['x', 'nan', '(1', '', ' 1'];
const kMembers = ['a', 'b', 'c', 'd', 'e', '', '\x00', 'm'.repeat(60)];
const kScoreBounds = ['-inf', '+inf', 'inf', '(1', '1', '2', '(2', '0', '1.5', '(1.5', '-1', '(-inf', '(+inf', '(', 'x', '1e17'];
const kLexBounds = ['-', '+', '[a', '(a', '[c', '(c', '[e', '(e', '[', '(', '[\x00', 'a', '+x'];
const kRanks = ['0', '1', '2', '-1', '-2', '3', '100', '-100', 'x'];

const m = (rng: Rng) => rng.pick(kMembers);
const sc = (rng: Rng) => (rng.chance(0.04) ? rng.pick(kBadScores) : rng.pick(kScores));
const limit = (rng: Rng) => (rng.chance(0.4) ? ['LIMIT', rng.pick(['0', '1', '-1', '2']), rng.pick(['1', '2', '-1', '0', '10'])] : []);
const ws = (rng: Rng) => (rng.chance(0.5) ? ['WITHSCORES'] : []);

function zadd(rng: Rng, k: Buffer, lex: boolean): Step {
  const flags = ['NX', 'XX', 'GT', 'LT', 'CH', 'INCR'].filter(() => !lex && rng.chance(0.12));
  const pairs = Array.from({ length: flags.includes('INCR') ? 1 : rng.between(1, 3) }, () => [lex ? '0' : sc(rng), m(rng)]).flat();
  return exact('ZADD', k, ...flags, ...pairs);
}

export const zsetFamily: CollectionFamily = {
  name: 'sorted sets',
  extra: ['lex', 'lex2', 'set'],
  step(rng, key): Step[] {
    const k = key();
    const lk = key(rng.pick(['lex', 'lex2']));
    const srcs = () => Array.from({ length: rng.between(1, 3) }, () => (rng.chance(0.15) ? key('set') : key()));
    const r = rng.next();
    if (r < 0.14) return [zadd(rng, k, false)];
    if (r < 0.18) return [zadd(rng, lk, true)];
    if (r < 0.2) return [exact('SADD', key('set'), m(rng), m(rng))];
    if (r < 0.23) return [exact('ZINCRBY', k, rng.chance(0.9) ? sc(rng) : 'x', m(rng))];
    if (r < 0.28) return [exact('ZREM', rng.chance(0.8) ? k : lk, m(rng), m(rng))];
    if (r < 0.3) return [exact('ZCARD', k)];
    if (r < 0.33) return [exact('ZSCORE', k, m(rng))];
    if (r < 0.35) return [exact('ZMSCORE', k, m(rng), m(rng))];
    if (r < 0.38) return [exact(rng.pick(['ZRANK', 'ZREVRANK']), k, m(rng))];
    if (r < 0.41) return [exact('ZCOUNT', k, rng.pick(kScoreBounds), rng.pick(kScoreBounds))];
    if (r < 0.43) return [exact('ZLEXCOUNT', lk, rng.pick(kLexBounds), rng.pick(kLexBounds))];
    if (r < 0.48) {
      const form = rng.int(3);
      if (form === 0) return [exact('ZRANGE', k, rng.pick(kRanks), rng.pick(kRanks), ...(rng.chance(0.3) ? ['REV'] : []), ...ws(rng))];
      if (form === 1) return [exact('ZREVRANGE', k, rng.pick(kRanks), rng.pick(kRanks), ...ws(rng))];
      return [exact('ZRANGE', k, rng.pick(kRanks), rng.pick(kRanks), ...rng.pick([['LIMIT', '0', '1'], ['BYSCORE', 'BYLEX'], ['REV', 'REV']]))];
    }
    if (r < 0.55) {
      const [a, b] = [rng.pick(kScoreBounds), rng.pick(kScoreBounds)];
      const form = rng.int(3);
      if (form === 0) return [exact('ZRANGEBYSCORE', k, a, b, ...ws(rng), ...limit(rng))];
      if (form === 1) return [exact('ZREVRANGEBYSCORE', k, a, b, ...limit(rng), ...ws(rng))];
      return [exact('ZRANGE', k, a, b, 'BYSCORE', ...(rng.chance(0.5) ? ['REV'] : []), ...limit(rng), ...ws(rng))];
    }
    if (r < 0.6) {
      const [a, b] = [rng.pick(kLexBounds), rng.pick(kLexBounds)];
      const form = rng.int(3);
      if (form === 0) return [exact('ZRANGEBYLEX', lk, a, b, ...limit(rng))];
      if (form === 1) return [exact('ZREVRANGEBYLEX', lk, a, b, ...limit(rng), ...(rng.chance(0.1) ? ['WITHSCORES'] : []))];
      return [exact('ZRANGE', lk, a, b, 'BYLEX', ...(rng.chance(0.5) ? ['REV'] : []), ...limit(rng))];
    }
    if (r < 0.63) {
      const form = rng.int(3);
      if (form === 0) return [exact('ZRANGESTORE', key(), k, rng.pick(kRanks), rng.pick(kRanks))];
      if (form === 1) return [exact('ZRANGESTORE', key(), k, rng.pick(kScoreBounds), rng.pick(kScoreBounds), 'BYSCORE', ...limit(rng))];
      return [exact('ZRANGESTORE', key(), lk, rng.pick(kLexBounds), rng.pick(kLexBounds), 'BYLEX', 'REV')];
    }
    if (r < 0.67) return [exact(rng.pick(['ZPOPMIN', 'ZPOPMAX']), rng.chance(0.85) ? k : lk, ...rng.pick([[], [], ['1'], ['2'], ['0'], ['-1']]))];
    if (r < 0.69) {
      const ks = [key(), key()];
      return [exact('ZMPOP', '2', ...ks, rng.pick(['MIN', 'MAX', 'max', 'mid']), ...rng.pick([[], ['COUNT', '2'], ['COUNT', '0']]))];
    }
    if (r < 0.72) return [exact('ZREMRANGEBYRANK', k, rng.pick(kRanks), rng.pick(kRanks))];
    if (r < 0.74) return [exact('ZREMRANGEBYSCORE', k, rng.pick(kScoreBounds), rng.pick(kScoreBounds))];
    if (r < 0.76) return [exact('ZREMRANGEBYLEX', lk, rng.pick(kLexBounds), rng.pick(kLexBounds))];
    if (r < 0.78) return [norm('length', 'ZRANDMEMBER', k, ...rng.pick([[], ['2'], ['-3'], ['0'], ['5', 'WITHSCORES'], ['1', 'bad']]))];
    if (r < 0.86) {
      const ks = srcs();
      const op = rng.pick(['ZUNION', 'ZINTER', 'ZDIFF', 'ZUNIONSTORE', 'ZINTERSTORE', 'ZDIFFSTORE']);
      const opts: string[] = [];
      if (rng.chance(0.3)) opts.push('WEIGHTS', ...ks.map(() => rng.pick(['1', '2', '0.5', '3', '0', 'inf', 'x'])));
      if (rng.chance(0.3)) opts.push('AGGREGATE', rng.pick(['SUM', 'MIN', 'MAX', 'max', 'AVG']));
      if (!op.endsWith('STORE') && rng.chance(0.6)) opts.push('WITHSCORES');
      const head = op.endsWith('STORE') ? [key()] : [];
      return [exact(op, ...head, String(ks.length), ...ks, ...opts)];
    }
    if (r < 0.875) {
      // every key here fits a listpack (≤ 128 members of ≤ 64 bytes): one reply, score order
      const opts = [...rng.pick([[], ['COUNT', '1'], ['COUNT', '1000']]), ...rng.pick([[], ['MATCH', '[a-c]']])];
      return [exact('ZSCAN', k, rng.pick(['0', '0', '7', '18446744073709551615']), ...opts)];
    }
    if (r < 0.885) {
      const ks = srcs();
      return [exact('ZINTERCARD', String(ks.length), ...ks, ...rng.pick([[], ['LIMIT', '1'], ['LIMIT', '0'], ['LIMIT', '-1'], ['LIMIT', 'x'], ['WITHSCORES']]))];
    }
    if (r < 0.91) return [exact('SET', k, 'str')];
    if (r < 0.96) return [exact('DEL', rng.chance(0.8) ? k : lk)];
    return [exact(rng.pick(['ZADD', 'ZRANGE', 'ZINCRBY', 'ZUNIONSTORE']), k)]; // wrong arity
  },
  dump: (keys) => keys.flatMap((k) => [exact('ZRANGE', k, '0', '-1', 'WITHSCORES'), exact('ZCARD', k)]),
  edges: [
    exact('ZADD', 'z', '1', 'a', '2', 'b', '3', 'c'), exact('SADD', 's', 'a', 'c', 'x'), exact('SET', 'str', 'v'),
    exact('ZINTERCARD', '2', 'z', 's'), exact('ZINTERCARD', '2', 'z', 's', 'LIMIT', '1'), exact('ZINTERCARD', '2', 'z', 'z'),
    exact('ZINTERCARD', '2', 'z', 'nokey'), exact('ZINTERCARD', '1', 'z', 'limit', '0', 'LIMIT', '2'),
    exact('ZINTERCARD', '0', 'z'), exact('ZINTERCARD', '-1', 'z'), exact('ZINTERCARD', 'x', 'z'),
    exact('ZINTERCARD', '9223372036854775808', 'z'), exact('ZINTERCARD', '2', 'z'), exact('ZINTERCARD', '1', 'z', 'z'),
    exact('ZINTERCARD', '1', 'z', 'LIMIT'), exact('ZINTERCARD', '1', 'z', 'LIMIT', 'x'), exact('ZINTERCARD', '1', 'z', 'LIMIT', '-1'),
    exact('ZINTERCARD', '1', 'z', 'WEIGHTS', '1'), exact('ZINTERCARD', '1', 'z', 'AGGREGATE', 'SUM'),
    exact('ZINTERCARD', '2', 'z', 'str'), exact('ZINTERCARD', '1', 'str', 'LIMIT', 'x'), exact('ZINTERCARD', '1', 'nokey', 'LIMIT', 'x'),
    exact('ZINTERCARD', '1'), exact('ZINTERCARD'),
    exact('ZADD', 'big', ...Array.from({ length: 130 }, (_, i) => [String(i % 7), `m${i}`]).flat()),
    exact('ZADD', 'z2', '1e17', 'x', '-inf', 'y', '2.5', 'z', '2.5', 'a'),
    exact('ZSCAN', 'z2', '0'), exact('ZSCAN', 'z2', '5', 'COUNT', '1', 'MATCH', '[xyz]'), exact('ZINTERCARD', '2', 'big', 'z'),
    // more than 128 members: a skiplist, paged, scores %.17g; COUNT 1000 gets it all in one page from both
    exact('ZADD', 'big', '1e17', 'x', '-inf', 'y', '2.5', 'z'), norm('scan-pairs', 'ZSCAN', 'big', '0', 'COUNT', '1000'),
    // several distinct members without INCR: z_add's one-statement path, flags and pop bounds
    exact('ZADD', 'fp', '5', 'a', '6', 'b', '7', 'c'), exact('ZADD', 'fp', 'GT', 'CH', '4', 'a', '8', 'b', '1', 'n'),
    exact('ZADD', 'fp', 'LT', 'CH', '4', 'a', '9', 'b', '0', 'c'), exact('ZADD', 'fp', 'XX', 'CH', '1', 'a', '1', 'q', '-1', 'b'),
    exact('ZADD', 'fp', 'NX', 'CH', '100', 'a', '-5', 'z1', '50', 'z2'), exact('ZADD', 'fp', 'NX', '1', 'a', '2', 'b'),
    exact('ZADD', 'fp', '4', 'a', '0', 'c'), exact('ZADD', 'fp', 'XX', 'GT', '1', 'q', '2', 'r'),
    exact('ZRANGE', 'fp', '0', '-1', 'WITHSCORES'), exact('ZPOPMIN', 'fp', '2'), exact('ZPOPMAX', 'fp'),
    exact('ZADD', 'fp', '-100', 'low', '-99', 'low2', '1000', 'high', '999', 'high2'), exact('ZPOPMIN', 'fp'), exact('ZPOPMAX', 'fp'),
    exact('ZADD', 'fp', 'GT', '2000', 'high2', '-50', 'low2'), exact('ZPOPMAX', 'fp'), exact('ZPOPMIN', 'fp', '3'),
    exact('ZADD', 'fp', 'XX', 'LT', '-7', 'z2', '3', 'n'), exact('ZPOPMIN', 'fp'), exact('ZRANGE', 'fp', '0', '-1', 'WITHSCORES'),
    exact('ZADD', 'fp2', 'NX', '1', 'a', '2', 'b'), exact('ZADD', 'fp3', 'XX', '1', 'a', '2', 'b'), exact('EXISTS', 'fp3'),
    exact('ZADD', 'fp2', 'GT', 'LT', '1', 'a', '2', 'b'), exact('ZRANGE', 'fp2', '0', '-1', 'WITHSCORES'),
  ],
};

differential(zsetFamily, 20240704);
