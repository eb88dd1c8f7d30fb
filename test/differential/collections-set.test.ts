/**
 * Differential: set commands against redis-server 7.0 in four connection patterns
 * (collections-compare.ts). SMEMBERS, SINTER, SUNION, SDIFF and SSCAN are compared as multisets,
 * SRANDMEMBER and SPOP by size (random by contract); SPOP is followed by DEL of its key so both
 * servers go on from the same state.
 */
import { differential, exact, norm, type CollectionFamily, type Step } from './collections-compare';
import type { Rng } from './prng';

const kMembers = ['1', '2', '3', '10', '-1', 'a', 'b', 'c', '', '\x00', 'x'.repeat(70)];
const member = (rng: Rng) => rng.pick(kMembers);
const some = (rng: Rng, max: number) => Array.from({ length: rng.between(1, max) }, () => member(rng));

export const setFamily: CollectionFamily = {
  name: 'sets',
  step(rng, key): Step[] {
    const k = key();
    const keys = (max: number) => Array.from({ length: rng.between(1, max) }, () => key());
    const r = rng.next();
    if (r < 0.22) return [exact('SADD', k, ...some(rng, 4))];
    if (r < 0.32) return [exact('SREM', k, ...some(rng, 3))];
    if (r < 0.35) return [exact('SCARD', k)];
    if (r < 0.4) return [exact('SISMEMBER', k, member(rng))];
    if (r < 0.43) return [exact('SMISMEMBER', k, ...some(rng, 4))];
    if (r < 0.47) return [norm('set', 'SMEMBERS', k)];
    if (r < 0.5) return [norm('length', 'SRANDMEMBER', k, ...rng.pick([[], ['2'], ['-3'], ['0'], ['20'], ['x'], ['1', '2']]))];
    if (r < 0.53) return [norm('length', 'SPOP', k, ...rng.pick([[], ['1'], ['2'], ['0'], ['50'], ['-1']])), exact('DEL', k)];
    if (r < 0.6) return [exact('SMOVE', k, key(), member(rng))];
    if (r < 0.68) return [norm('set', rng.pick(['SINTER', 'SUNION', 'SDIFF']), ...keys(3))];
    if (r < 0.71) {
      const ks = keys(3);
      return [exact('SINTERCARD', String(ks.length), ...ks, ...rng.pick([[], ['LIMIT', '1'], ['LIMIT', '0'], ['LIMIT', '-1']]))];
    }
    if (r < 0.79) return [exact(rng.pick(['SINTERSTORE', 'SUNIONSTORE', 'SDIFFSTORE']), key(), ...keys(3))];
    if (r < 0.82) return [norm('scan-set', 'SSCAN', k, '0', 'COUNT', '1000', ...rng.pick([[], ['MATCH', '1*'], ['MATCH', '[ab]']]))];
    if (r < 0.86) return [exact('SET', k, 'str')];
    if (r < 0.89) return [exact('HSET', k, 'f', 'v')];
    if (r < 0.95) return [exact('DEL', k)];
    return [exact(rng.pick(['SADD', 'SREM', 'SMOVE', 'SINTERSTORE']), k)]; // wrong arity
  },
  dump: (keys) => keys.flatMap((k) => [norm('set', 'SMEMBERS', k), exact('SCARD', k)]),
  edges: [
    exact('SADD', 's', 'a', 'b', 'c'), exact('SINTERCARD', '0', 's'), exact('SINTERCARD', 'x', 's'),
    exact('SINTERCARD', '2', 's'), exact('SINTERCARD', '1', 's', 'LIMIT'), exact('SINTERCARD', '1', 's', 'LIMIT', 'x'),
    exact('SPOP', 's', '-1'), exact('SPOP', 's', '1', '2'), exact('SRANDMEMBER', 's', '-9223372036854775808'),
    norm('set', 'SRANDMEMBER', 's', '9223372036854775807'), norm('set', 'SPOP', 's', '9223372036854775807'), exact('EXISTS', 's'),
    exact('SSCAN', 's', 'x'), exact('SSCAN', 's', '0', 'COUNT', '0'), exact('SSCAN', 'nokey', '0', 'COUNT', '0'),
  ],
};

differential(setFamily, 20240702);
