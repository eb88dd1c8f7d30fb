/**
 * Generic key commands so far: DEL EXISTS (duplicate keys count twice in EXISTS, once in DEL),
 * DBSIZE FLUSHDB FLUSHALL (whole keyspace: only when one session runs).
 */
import type { Cmd } from '../oracle';
import type { Family, Keyspace } from './family';

const kWrongArity: Cmd[] = [['DEL'], ['EXISTS'], ['DBSIZE', 'x'], ['FLUSHDB', 'ASYNC', 'x'], ['FLUSHALL', 'x', 'y']];

function keyEdges(ks: Keyspace, exclusive: boolean): Cmd[] {
  const [a, b] = ks.keys;
  const out: Cmd[] = [
    ['SET', a, '1'], ['EXISTS', a, a, a], ['EXISTS', a, b, a, b], ['DEL', a, a, b], ['EXISTS', a], ['DEL', a],
    ['MSET', a, '1', b, '2'], ['DEL', b, a, b, a], ['EXISTS', a, b], ...kWrongArity.slice(0, 2),
  ];
  if (exclusive) {
    out.push(['MSET', a, '1', b, '2'], ['DBSIZE'], ['SELECT', '1'], ['SET', a, 'db1'], ['DBSIZE'], ['FLUSHDB'],
      ['DBSIZE'], ['SELECT', '0'], ['DBSIZE'], ['FLUSHDB', 'sync'], ['FLUSHALL', 'ASYNC'], ['FLUSHDB', 'nope'],
      ['FLUSHALL', 'SYNC'], ['DBSIZE'], ...kWrongArity.slice(2));
  }
  return out;
}

export const keys: Family = {
  name: 'keys',
  commands: [
    { name: 'del', weight: 4, make: ({ rng, ks }) => ['DEL', ...ks.someKeys(rng, 4)] },
    { name: 'exists', weight: 4, make: ({ rng, ks }) => ['EXISTS', ...ks.someKeys(rng, 5)] },
    // EXISTS first: Redis's DBSIZE counts keys whose TTL passed until something touches them
    { name: 'dbsize', weight: 1.5, wholeKeyspace: true, before: ({ ks }) => [ks.touch()], make: () => ['DBSIZE'] },
    { name: 'flushdb', weight: 0.3, wholeKeyspace: true, make: ({ rng }) => ['FLUSHDB', ...(rng.chance(0.3) ? ['ASYNC'] : [])] },
    { name: 'flushall', weight: 0.1, wholeKeyspace: true, make: () => ['FLUSHALL'] },
    { name: 'arity', weight: 0.3, wholeKeyspace: true, make: ({ rng }) => rng.pick(kWrongArity) },
  ],
  edges: keyEdges,
};
