/**
 * Differential: hash commands against redis-server 7.0 in four connection patterns
 * (collections-compare.ts), random sequences from a fixed seed over a few keys, fields and
 * values that collide, with strings mixed in (WRONGTYPE) and keys deleted and recreated.
 * HKEYS/HVALS/HGETALL are compared as multisets and HRANDFIELD by size: Redis leaves their
 * order (and HRANDFIELD's picks) unspecified.
 */
import { differential, exact, norm, type CollectionFamily, type Step } from './collections-compare';
import { kValues } from './generators/family';
import type { Rng } from './prng';

const kFields = ['f1', 'f2', 'f3', 'f4', '', '\x00x', 'n'];
const kIncr = ['1', '-1', '10', '0', '9223372036854775807', '-9223372036854775808', 'x', '1.5', '', ' 1', '01'];
const kFloats = ['0.1', '0.2', '1.5', '-2.25', '1e3', '3', '-0', '0x10', '5e-324', '1e308', '1e4000', 'abc', 'inf', '', '1e', '.5', '7.'];

const field = (rng: Rng) => rng.pick(kFields);
const val = (rng: Rng): string | Buffer => (rng.chance(0.3) ? rng.pick(['1', '-5', '2.5', '9223372036854775806', 'inf', 'abc']) : rng.pick(kValues));

export const hashFamily: CollectionFamily = {
  name: 'hashes',
  step(rng, key): Step[] {
    const k = key();
    const r = rng.next();
    if (r < 0.2) return [exact('HSET', k, ...Array.from({ length: rng.between(1, 3) }, () => [field(rng), val(rng)]).flat())];
    if (r < 0.25) return [exact('HSETNX', k, field(rng), val(rng))];
    if (r < 0.28) return [exact('HMSET', k, field(rng), val(rng), ...(rng.chance(0.2) ? [field(rng)] : []))];
    if (r < 0.36) return [exact('HGET', k, field(rng))];
    if (r < 0.4) return [exact('HMGET', k, ...Array.from({ length: rng.between(1, 4) }, () => field(rng)))];
    if (r < 0.48) return [exact('HDEL', k, ...Array.from({ length: rng.between(1, 3) }, () => field(rng)))];
    if (r < 0.51) return [exact('HEXISTS', k, field(rng))];
    if (r < 0.54) return [exact('HLEN', k)];
    if (r < 0.56) return [exact('HSTRLEN', k, field(rng))];
    if (r < 0.58) return [norm('set', 'HKEYS', k)];
    if (r < 0.6) return [norm('set', 'HVALS', k)];
    if (r < 0.64) return [norm('pairs', 'HGETALL', k)];
    if (r < 0.7) return [exact('HINCRBY', k, field(rng), rng.pick(kIncr))];
    if (r < 0.77) return [exact('HINCRBYFLOAT', k, field(rng), rng.pick(kFloats))];
    if (r < 0.8) {
      const args = rng.pick([[], ['1'], ['-3'], ['0'], ['10', 'WITHVALUES'], ['-2', 'withvalues'], ['x'], ['1', 'bogus']]);
      return [norm('length', 'HRANDFIELD', k, ...args)];
    }
    if (r < 0.83) {
      const opts = rng.pick([[], ['MATCH', 'f*'], ['MATCH', '*2'], ['COUNT', '0'], ['bogus']]);
      return [norm('scan-pairs', 'HSCAN', k, '0', 'COUNT', '1000', ...opts)];
    }
    if (r < 0.87) return [exact('SET', k, 'str')];
    if (r < 0.92) return [exact('DEL', k)];
    if (r < 0.95) return [exact('GET', k)];
    return [exact(rng.pick(['HGET', 'HLEN', 'HDEL', 'HSET']))]; // wrong arity
  },
  dump: (keys) => keys.flatMap((k) => [norm('pairs', 'HGETALL', k), exact('HLEN', k)]),
};

differential(hashFamily, 20240701);
