/**
 * Differential: list commands against redis-server 7.0 in four connection patterns
 * (collections-compare.ts). Every reply is deterministic, so every reply is compared byte for
 * byte: pushes, pops with counts, indexes at the edges of int64, LINSERT / LREM / LTRIM / LSET
 * in the middle, LPOS options, LMOVE between and within lists, LMPOP.
 */
import { differential, exact, type CollectionFamily, type Step } from './collections-compare';
import type { Rng } from './prng';

const kValues = ['a', 'b', 'c', 'a', '', '\x00', '1', 'x'.repeat(100)];
const kIndexes = ['0', '1', '2', '-1', '-2', '5', '-6', '100', '-100', '9223372036854775807', '-9223372036854775808', 'x', ''];
const v = (rng: Rng) => rng.pick(kValues);
const idx = (rng: Rng) => rng.pick(kIndexes);
const sideArg = (rng: Rng) => rng.pick(['LEFT', 'RIGHT', 'left', 'right', 'up']);

export const listFamily: CollectionFamily = {
  name: 'lists',
  step(rng, key): Step[] {
    const k = key();
    const r = rng.next();
    const vals = () => Array.from({ length: rng.between(1, 4) }, () => v(rng));
    if (r < 0.16) return [exact(rng.pick(['LPUSH', 'RPUSH']), k, ...vals())];
    if (r < 0.2) return [exact(rng.pick(['LPUSHX', 'RPUSHX']), k, ...vals())];
    if (r < 0.28) return [exact(rng.pick(['LPOP', 'RPOP']), k, ...rng.pick([[], [], ['1'], ['2'], ['0'], ['10'], ['-1'], ['x']]))];
    if (r < 0.31) return [exact('LLEN', k)];
    if (r < 0.38) return [exact('LRANGE', k, idx(rng), idx(rng))];
    if (r < 0.42) return [exact('LINDEX', k, idx(rng))];
    if (r < 0.46) return [exact('LSET', k, idx(rng), v(rng))];
    if (r < 0.51) return [exact('LINSERT', k, rng.pick(['BEFORE', 'AFTER', 'after', 'middle']), v(rng), v(rng))];
    if (r < 0.56) return [exact('LREM', k, rng.pick(['0', '1', '-1', '2', '-2', 'x']), v(rng))];
    if (r < 0.6) return [exact('LTRIM', k, idx(rng), idx(rng))];
    if (r < 0.65) {
      const opts = Array.from({ length: rng.between(0, 2) }, () => [rng.pick(['RANK', 'COUNT', 'MAXLEN', 'rank']),
        rng.pick(['1', '2', '-1', '-2', '0', '3', 'x', '-9223372036854775808'])]).flat();
      return [exact('LPOS', k, v(rng), ...opts)];
    }
    if (r < 0.72) return [exact('LMOVE', k, key(), sideArg(rng), sideArg(rng))];
    if (r < 0.75) return [exact('RPOPLPUSH', k, key())];
    if (r < 0.8) {
      const ks = Array.from({ length: rng.between(1, 3) }, () => key());
      return [exact('LMPOP', rng.chance(0.9) ? String(ks.length) : rng.pick(['0', '5', 'x']), ...ks, sideArg(rng),
        ...rng.pick([[], ['COUNT', '2'], ['COUNT', '10'], ['COUNT', '0']]))];
    }
    if (r < 0.84) return [exact('SET', k, 'str')];
    if (r < 0.87) return [exact('SADD', k, 'm')];
    if (r < 0.94) return [exact('DEL', k)];
    return [exact(rng.pick(['LPUSH', 'LRANGE', 'LSET', 'LMOVE']), k)]; // wrong arity
  },
  dump: (keys) => keys.flatMap((k) => [exact('LRANGE', k, '0', '-1'), exact('LLEN', k)]),
};

differential(listFamily, 20240703);
