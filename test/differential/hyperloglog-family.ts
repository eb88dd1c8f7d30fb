/**
 * Random HyperLogLog commands for the differential test (hyperloglog.test.ts): PFADDs of 0 to
 * 2,500 elements (enough to promote values to dense), counts, merges, GETs of the raw values, and
 * corruption of the values (SETRANGE, APPEND, SET) followed by more of the same.
 */
import { exact, type CollectionFamily, type Step } from './collections-compare';
import type { Rng } from './prng';

const element = (rng: Rng): string | Buffer => (rng.chance(0.05) ? rng.bytes(rng.between(0, 12)) : `e${rng.int(200000)}`);

function elements(rng: Rng): (string | Buffer)[] {
  const r = rng.next();
  const n = r < 0.1 ? 0 : r < 0.5 ? rng.between(1, 5) : r < 0.95 ? rng.between(20, 200) : rng.between(1000, 2500);
  return Array.from({ length: n }, () => element(rng));
}

export const hllFamily: CollectionFamily = {
  name: 'hyperloglog',
  step(rng, key): Step[] {
    const k = key();
    const keys = (max: number) => Array.from({ length: rng.between(1, max) }, () => key());
    const r = rng.next();
    if (r < 0.3) return [exact('PFADD', k, ...elements(rng))];
    if (r < 0.42) return [exact('PFCOUNT', k)];
    if (r < 0.5) return [exact('PFCOUNT', ...keys(4))];
    if (r < 0.58) return [exact('PFMERGE', k, ...keys(3).slice(rng.int(2)))];
    if (r < 0.68) return [exact('GET', k)];
    if (r < 0.71) return [exact('STRLEN', k)];
    if (r < 0.75) return [exact('SETRANGE', k, String(rng.int(40)), rng.bytes(1)), exact('PFCOUNT', k)];
    if (r < 0.77) return [exact('APPEND', k, 'x')];
    if (r < 0.79) return [exact('SET', k, rng.pick(['foo', 'HYLL', 'HYLL\x00\x00\x00\x00' + '\x00'.repeat(8), '123']))];
    if (r < 0.83) return [exact('PFDEBUG', rng.pick(['ENCODING', 'DECODE', 'TODENSE', 'GETREG', 'nope']), k)];
    if (r < 0.86) return [exact('DEL', k)];
    if (r < 0.88) return [exact(rng.pick(['SADD', 'RPUSH']), k, 'x')];
    if (r < 0.9) return [exact('EXPIRE', k, '100')];
    return [exact(rng.pick(['PFADD', 'PFCOUNT', 'PFMERGE']))]; // wrong arity
  },
  // EXPIRE … NX answers 0 while the key keeps the TTL an earlier EXPIRE gave it (TTL itself drifts with time)
  dump: (keys) => keys.flatMap((k) => [exact('GET', k), exact('PFCOUNT', k), exact('EXPIRE', k, '100', 'NX')]),
  edges: [
    exact('PFADD', 'h'), exact('GET', 'h'), exact('PFCOUNT', 'h'), exact('GET', 'h'), exact('PFADD', 'h', 'a', 'b', 'c'),
    exact('PFCOUNT', 'h'), exact('GETRANGE', 'h', '15', '15'), exact('PFADD', 'h', 'a', 'b', 'c'), exact('GETRANGE', 'h', '15', '15'),
    exact('PFADD', 'h', '1', '2', '3'), exact('GETRANGE', 'h', '15', '15'), exact('PFADD', 'h', ''), exact('PFCOUNT', 'nokey'),
    exact('PFCOUNT', 'nokey', 'nokey2'), exact('PFMERGE', 'dst'), exact('GET', 'dst'), exact('PFMERGE', 'dst', 'nokey'),
    exact('PFDEBUG', 'GETREG', 'nokey'), exact('PFDEBUG', 'ENCODING', 'h'), exact('PFDEBUG', 'TODENSE', 'h'),
    exact('PFDEBUG', 'TODENSE', 'h'), exact('PFDEBUG', 'DECODE', 'h'), exact('GET', 'h'), exact('PFCOUNT', 'h'),
    exact('GET', 'h'), exact('PFADD', 'h', 'x', 'y'), exact('GET', 'h'), exact('PFMERGE', 'dst', 'h'), exact('GET', 'dst'),
    exact('SET', 's', 'x'.repeat(100)), exact('PFADD', 's', 'a'), exact('PFCOUNT', 's'), exact('PFCOUNT', 'h', 's'),
    exact('PFMERGE', 'h', 's'), exact('PFMERGE', 's', 'h'), exact('SET', 'n', '-9223372036854775808'), exact('PFCOUNT', 'n'),
    exact('LPUSH', 'l', 'a'), exact('PFADD', 'l', 'a'), exact('PFCOUNT', 'l'), exact('PFCOUNT', 'h', 'l'),
    exact('PFMERGE', 'l', 'h'), exact('PFDEBUG', 'ENCODING', 'l'), exact('PFDEBUG', 'GETREG'),
    // corrupted sparse values (hyperloglog.tcl's cases)
    exact('DEL', 'c'), exact('PFADD', 'c', 'a', 'b', 'c'), exact('APPEND', 'c', 'hello'), exact('PFCOUNT', 'c'),
    exact('PFADD', 'c', 'zz'), exact('PFMERGE', 'c2', 'c'), exact('GET', 'c'),
    exact('DEL', 'c'), exact('PFADD', 'c', 'a', 'b', 'c'), exact('SETRANGE', 'c', '0', '0123'), exact('PFCOUNT', 'c'),
    exact('DEL', 'c'), exact('PFADD', 'c', 'a', 'b', 'c'), exact('SETRANGE', 'c', '4', 'x'), exact('PFCOUNT', 'c'),
    exact('DEL', 'c'), exact('PFADD', 'c', 'a', 'b', 'c'), exact('SETRANGE', 'c', '4', '\x00'), exact('PFCOUNT', 'c'),
    exact('DEL', 'c'), exact('PFADD', 'c', 'a', 'b', 'c'), exact('SETRANGE', 'c', '17', '\xff'), exact('PFCOUNT', 'c'),
    exact('PFADD', 'c', 'q', 'r'), exact('GET', 'c'), exact('PFDEBUG', 'TODENSE', 'c'), exact('PFMERGE', 'c3', 'c'),
    exact('DEL', 'c'), exact('PFADD', 'c', 'a', 'b', 'c'), exact('SETRANGE', 'c', '16', '\x40\x00'), exact('PFADD', 'c', 'q'),
    exact('GET', 'c'), exact('PFCOUNT', 'c'),
  ],
};

