/**
 * Differential: SORT and SORT_RO against redis-server 7.0 in four connection patterns
 * (collections-compare.ts), on a list (suffix L), a set of integers (S: Redis keeps it as an
 * intset, in ascending order), a set of words (T) and a sorted set (Z), with weights in string
 * keys (w_<element>) and hash fields (h_<element> f). Byte for byte, except where Redis's own
 * order is its hash table's (BY nosort on a set of words, and equal ALPHA weights of a set of
 * words or a sorted set: compared as sets) or its partial quicksort's (equal ALPHA weights with
 * LIMIT: compared by length). No weight overflows or underflows (1e500, 1e-310): Redis tests
 * errno for ERANGE without clearing it first, so after one such weight its SORTs fail until some
 * other command clears errno — an answer that depends on the server's history.
 */
import { differential, exact, norm, type CollectionFamily, type Step } from './collections-compare';
import type { Rng } from './prng';

const kNumbers = ['3', '1', '2', '10', '-1', '1.5', '0x10', '007', '1e2', '-0', ''];
const kWords = ['apple', 'Banana', 'cherry', 'a', 'b', '10', '2', 'x\x00y', 'x\x00z', 'é'];
const kWeights = ['5', '1', '-3', '2.5', 'inf', 'zz', 'a', '1', ''];

const some = (rng: Rng, pool: string[], max: number) => Array.from({ length: rng.between(1, max) }, () => rng.pick(pool));

export const sortFamily: CollectionFamily = {
  name: 'sort',
  extra: ['L', 'S', 'T', 'Z', 'dst'],
  step(rng, key): Step[] {
    const kind = rng.pick(['L', 'S', 'T', 'Z']);
    const k = key(kind);
    const pfx = k.toString('latin1').slice(0, -1); // the session's key prefix
    const r = rng.next();
    if (r < 0.25) {
      if (kind === 'L') return [exact('RPUSH', k, ...some(rng, rng.chance(0.5) ? kNumbers : [...kNumbers, ...kWords], 4))];
      if (kind === 'S') return [exact('SADD', k, ...some(rng, ['3', '1', '2', '10', '-1', '100', '7'], 4))];
      if (kind === 'T') return [exact('SADD', k, ...some(rng, kWords, 4))];
      return [exact('ZADD', k, String(rng.between(0, 5)), rng.pick([...kNumbers, ...kWords]))];
    }
    if (r < 0.35) {
      const el = rng.pick([...kNumbers, ...kWords, '100', '7']);
      return [rng.chance(0.6) ? exact('SET', `${pfx}w_${el}`, rng.pick(kWeights)) : exact('HSET', `${pfx}h_${el}`, 'f', rng.pick(kWeights))];
    }
    if (r < 0.4) return [exact('DEL', k)];
    if (r < 0.42) return [exact('SET', k, 'str'), exact('SORT', k), exact('DEL', k)];
    if (r < 0.44) return [exact('SORT', key('L'), rng.pick(['LIMIT', 'BY', 'GET', 'STORE', 'FOO', 'LIMIT 1']), ...(rng.chance(0.5) ? ['x'] : []))];
    // a SORT
    const args: string[] = [];
    const by = rng.pick(['', '', `${pfx}w_*`, `${pfx}h_*->f`, 'nosort', `${pfx}w_*->`]);
    if (by !== '') args.push('BY', by);
    const limit = rng.chance(0.3);
    if (limit) args.push('LIMIT', rng.pick(['0', '1', '-1', '2', '100']), rng.pick(['1', '2', '-1', '0', '10']));
    for (let g = rng.between(0, 2); g > 0; g--) args.push('GET', rng.pick(['#', `${pfx}w_*`, `${pfx}h_*->f`, 'nokey', `${pfx}h_*->nope`]));
    if (rng.chance(0.4)) args.push(rng.pick(['ASC', 'DESC']));
    const alpha = rng.chance(0.4);
    if (alpha) args.push('ALPHA');
    const store = rng.chance(0.2);
    const byPattern = by.includes('*');
    // where Redis's order is its hash table's or its partial quicksort's (see the top): equal
    // ALPHA keys (weights, or elements equal up to a NUL byte) keep the collection's order
    const ties = alpha && (byPattern || !store);
    const unordered = (kind === 'T' && by === 'nosort' && !store) || ((kind === 'T' || kind === 'Z') && ties);
    const n = limit && (unordered || (alpha && byPattern)) ? 'length' : unordered ? 'set' : 'exact';
    if (store && !unordered && !(alpha && byPattern && limit)) {
      const dst = key('dst');
      return [exact('SORT', k, ...args, 'STORE', dst), exact('LRANGE', dst, '0', '-1')];
    }
    return [norm(n, rng.chance(0.3) ? 'SORT_RO' : 'SORT', k, ...args)];
  },
  dump: (keys) => keys.flatMap((k) => [exact('SORT', k, 'ALPHA', 'STORE', `${k.toString('latin1')}:copy`),
    exact('LRANGE', `${k.toString('latin1')}:copy`, '0', '-1')]),
  edges: [
    exact('RPUSH', 'l', '3', '1', '2', 'nan'), exact('SORT', 'l'), exact('SORT', 'l', 'ALPHA'), exact('SORT', 'l', 'LIMIT', '0', '2', 'ALPHA'),
    exact('SORT', 'l', 'STORE', 'dst'), exact('EXISTS', 'dst'), exact('SORT', 'l', 'BY', 'nosort', 'DESC'),
    exact('RPUSH', 'm', '1', ' 2', '0x1p3', '-inf'), exact('SORT', 'm'), exact('RPUSH', 'm2', '1', '2 ', '3'), exact('SORT', 'm2'),
    exact('RPUSH', 'm3', '1', 'Infinity', '-inf', '0x10', '1\x00zz', ''), exact('SORT', 'm3'), exact('SORT', 'm3', 'DESC'),
    exact('SORT', 'l', 'LIMIT', 'x', '1'), exact('SORT', 'l', 'LIMIT', '1'), exact('SORT', 'l', 'BY'), exact('SORT', 'l', 'GET'),
    exact('SORT_RO', 'l', 'STORE', 'x'), exact('SORT', 'nokey'), exact('SORT', 'nokey', 'STORE', 'dst2'), exact('EXISTS', 'dst2'),
    exact('SET', 'dst3', 'x'), exact('SORT', 'nokey', 'STORE', 'dst3'), exact('EXISTS', 'dst3'),
    exact('SET', 's', 'x'), exact('SORT', 's'), exact('SORT', 's', 'LIMIT', 'x', 'y'), exact('HSET', 'h', 'a', 'b'), exact('SORT', 'h'),
    exact('SADD', 'is', '5', '-2', '10', '3'), exact('SORT', 'is', 'BY', 'nosort'), exact('SORT', 'is', 'BY', 'nosort', 'LIMIT', '1', '2'),
    exact('SORT', 'is', 'BY', 'nosort', 'STORE', 'd4'), exact('LRANGE', 'd4', '0', '-1'),
    exact('ZADD', 'z', '3', 'c', '1', 'a', '2', 'b'), exact('SORT', 'z', 'BY', 'nosort'), exact('SORT', 'z', 'BY', 'nosort', 'DESC', 'LIMIT', '1', '5'),
    exact('SORT', 'z', 'BY', 'nosort', 'GET', '#', 'GET', 'x', 'GET', 'w*'), exact('SORT', 'z', 'ALPHA', 'DESC'),
    exact('SORT', 'z', 'LIMIT', '-9223372036854775808', '9223372036854775807', 'ALPHA'),
  ],
};

differential(sortFamily, 20241123);
