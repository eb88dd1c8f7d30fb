/**
 * String family: GET SET (every option, valid or not) MGET MSET INCR DECR INCRBY DECRBY.
 * TTLs are long (≥ 1000 s) or already past, so no reply depends on when a command runs; short
 * TTLs are checked separately with a sleep margin (strings.test.ts "expiry").
 */
import type { Cmd } from '../oracle';
import type { Rng } from '../prng';
import { intArg, value, type Family, type Keyspace } from './family';

// Per option: valid values (long or already past) and invalid ones (zero, negative, not an
// integer, overflowing once multiplied by 1000 or added to now).
const kTtl: Record<string, { ok: string[]; bad: string[] }> = {
  EX: { ok: ['1000', '86400', '100000'], bad: ['0', '-1', 'abc', '1.5', '', ' 10', '+10', '9223372036854775807', '9223372036854775', '9223372036854776'] },
  PX: { ok: ['100000000', '86400000', '9000000000000000000'], bad: ['0', '-5', 'x', '1e5', '9223372036854775807', '9223372036854775808'] },
  EXAT: { ok: ['4102444800', '1', '1000000000', '9223372036854775'], bad: ['0', '-1', 'soon', '9223372036854776', '9223372036854775807'] },
  PXAT: { ok: ['4102444800000', '1', '1000000000000', '9223372036854775807'], bad: ['0', '-1', '1.0', '9223372036854775808'] },
};

function ttlToken(rng: Rng): string[] {
  const name = rng.pick(['EX', 'PX', 'EXAT', 'PXAT']);
  const spelled = rng.chance(0.15) ? name.toLowerCase() : name;
  const v = kTtl[name];
  return [spelled, rng.chance(0.8) ? rng.pick(v.ok) : rng.pick(v.bad)];
}

const kFlagTokens = ['NX', 'XX', 'GET', 'KEEPTTL', 'nx', 'xX', 'get', 'keepttl'];

function setOptions(rng: Rng): string[] {
  const n = rng.pick([0, 0, 0, 1, 1, 1, 2, 2, 3, 4]);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = rng.next();
    if (r < 0.45) out.push(rng.pick(kFlagTokens));
    else if (r < 0.9) out.push(...ttlToken(rng));
    else if (r < 0.95) out.push(rng.pick(['FOO', 'EXX', 'PXAT1', '', 'NXX']));
    else out.push(rng.pick(['EX', 'PX', 'EXAT', 'PXAT'])); // no value follows (unless another option does)
  }
  return out;
}

function pairs(ks: Keyspace, rng: Rng, max: number): Buffer[] {
  return ks.someKeys(rng, max).flatMap((k) => [k, value(rng)]);
}

const kWrongArity: Cmd[] = [
  ['GET'], ['GET', 'a', 'b'], ['SET'], ['SET', 'a'], ['MGET'], ['MSET'], ['MSET', 'a'], ['MSET', 'a', '1', 'b'],
  ['INCR'], ['INCR', 'a', 'b'], ['DECR'], ['INCRBY', 'a'], ['INCRBY', 'a', '1', '2'], ['DECRBY'], ['DECRBY', 'a'],
];

// Every subset of up to three of these options, in order: the set of combinations Redis accepts
// is small (NX/XX exclusive, one of EX/PX/EXAT/PXAT/KEEPTTL), the rest must be syntax errors.
const kComboTokens: string[][] = [['NX'], ['XX'], ['GET'], ['KEEPTTL'], ['EX', '100000'], ['PX', '100000000'],
  ['EXAT', '4102444800'], ['PXAT', '1']];

function combos(): string[][] {
  const out: string[][] = [];
  const n = kComboTokens.length;
  for (let mask = 0; mask < 1 << n; mask++) {
    let bits = 0;
    for (let m = mask; m; m &= m - 1) bits++;
    if (bits > 3) continue;
    out.push(kComboTokens.filter((_, i) => mask & (1 << i)).flat());
  }
  return out;
}

function stringEdges(ks: Keyspace): Cmd[] {
  const k = ks.named('edge');
  const out: Cmd[] = [];
  // duplicate keys inside one pipeline (mode b sends all of this in one write)
  out.push(['SET', k, 'a'], ['SET', k, 'b'], ['GET', k], ['DEL', k], ['SET', k, 'v', 'NX'], ['SET', k, 'w', 'NX'],
    ['GET', k], ['SET', k, 'x', 'XX'], ['SET', k, 'y', 'XX', 'GET'], ['GET', k], ['DEL', k], ['INCR', k], ['INCR', k],
    ['INCRBY', k, '10'], ['DECR', k], ['DECRBY', k, '-5'], ['GET', k], ['MSET', k, '1', k, '2', k, '3'], ['GET', k],
    ['MGET', k, k, k], ['SET', k, 'old'], ['SET', k, 'new', 'GET'], ['SET', k, 'newer', 'GET'], ['GET', k]);
  // every SET option combination, on a missing key and on an existing one
  for (const opts of combos()) {
    out.push(['DEL', k], ['SET', k, 'v1', ...opts], ['GET', k], ['SET', k, 'old'], ['SET', k, 'v2', ...opts], ['GET', k]);
  }
  // invalid TTL values, each alone and followed by an invalid option (which error wins?)
  for (const [name, v] of Object.entries(kTtl)) {
    for (const bad of v.bad) out.push(['SET', k, 'v', name, bad], ['SET', k, 'v', name, bad, 'FOO'], ['SET', k, 'v', name, bad, 'NX', 'XX']);
    for (const ok of v.ok) out.push(['SET', k, 'v', name, ok], ['GET', k], ['SET', k, 'v', name, ok, 'GET'], ['GET', k]);
  }
  out.push(['SET', k, 'v', 'EX'], ['SET', k, 'v', 'EX', '10', 'EX', '20'], ['SET', k, 'v', 'EX', '1000', 'PX', '1000000'],
    ['SET', k, 'v', 'KEEPTTL', 'EX', '100'], ['SET', k, 'v', 'EX', '100', 'KEEPTTL'], ['SET', k, 'v', 'NX', 'NX'],
    ['SET', k, 'v', 'GET', 'GET'], ['SET', k, 'v', 'KEEPTTL', 'KEEPTTL']);
  // INCR family at the int64 edges and on non-integers
  const incrCases: [string, string, string?][] = [
    ['9223372036854775806', 'INCR'], ['9223372036854775807', 'INCR'], ['-9223372036854775807', 'DECR'],
    ['-9223372036854775808', 'DECR'], ['0', 'INCRBY', '9223372036854775807'], ['1', 'INCRBY', '9223372036854775807'],
    ['-1', 'INCRBY', '-9223372036854775808'], ['-2', 'INCRBY', '-9223372036854775808'], ['0', 'DECRBY', '-9223372036854775808'],
    ['0', 'DECRBY', '9223372036854775807'], ['-2', 'DECRBY', '9223372036854775807'], ['5', 'INCRBY', 'abc'],
    ['5', 'INCRBY', '9223372036854775808'], ['abc', 'INCR'], ['1.5', 'INCR'], ['', 'INCR'], [' 1', 'INCR'], ['01', 'INCR'],
    ['+1', 'INCR'], ['-0', 'INCR'], ['1\x00', 'INCR'], ['18446744073709551616', 'INCR'], ['10', 'INCRBY', '-0'],
    ['10', 'INCRBY', '+5'], ['10', 'DECRBY', ' 5'],
  ];
  for (const [start, cmd, arg] of incrCases) {
    out.push(['SET', k, Buffer.from(start, 'latin1')], arg === undefined ? [cmd, k] : [cmd, k, arg], ['GET', k]);
  }
  out.push(['DEL', k], ['DECRBY', k, '-9223372036854775808'], ['GET', k]);
  out.push(...kWrongArity);
  return out;
}

export const strings: Family = {
  name: 'strings',
  commands: [
    { name: 'get', weight: 10, make: ({ rng, ks }) => ['GET', ks.key(rng)] },
    { name: 'set', weight: 14, make: ({ rng, ks }) => ['SET', ks.key(rng), value(rng), ...setOptions(rng)] },
    { name: 'mget', weight: 4, make: ({ rng, ks }) => ['MGET', ...ks.someKeys(rng, 6)] },
    { name: 'mset', weight: 4, make: ({ rng, ks }) => ['MSET', ...pairs(ks, rng, 4)] },
    { name: 'incr', weight: 5, make: ({ rng, ks }) => [rng.pick(['INCR', 'DECR', 'incr']), ks.key(rng)] },
    { name: 'incrby', weight: 5, make: ({ rng, ks }) => [rng.pick(['INCRBY', 'DECRBY']), ks.key(rng), intArg(rng)] },
    { name: 'arity', weight: 1, make: ({ rng }) => rng.pick(kWrongArity) },
  ],
  edges: (ks) => stringEdges(ks),
};
