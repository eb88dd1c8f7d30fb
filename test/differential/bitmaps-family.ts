/**
 * Random bitmap commands for the differential test (bitmaps.test.ts): SETBIT/GETBIT at small
 * offsets and at the proto-max-bulk-len limit, BITCOUNT and BITPOS with byte and bit ranges (negative, reversed, out of range),
 * BITOP of up to 3 sources (missing ones, other types), BITFIELD with every width, signed and
 * unsigned, `#` offsets and each OVERFLOW mode at the limits, BITFIELD_RO, and GETs of the values.
 */
import { exact, type CollectionFamily, type Step } from './collections-compare';
import type { Rng } from './prng';

const kIdx = ['0', '1', '-1', '2', '-2', '5', '7', '8', '9', '15', '16', '100', '-100', '9223372036854775807', '-9223372036854775808'];
const kBigValues = ['9223372036854775807', '-9223372036854775808', '-1', '0', '1', '127', '128', '-129', '255', '256',
  '4611686018427387904', '-4611686018427387905', '18446744073709551615', 'x'];

function offset(rng: Rng): string {
  const r = rng.next();
  if (r < 0.6) return String(rng.int(40));
  if (r < 0.8) return String(rng.int(200));
  if (r < 0.9) return `#${rng.int(8)}`;
  return rng.pick(['-1', 'x', '4294967296', '#-1', '#2305843009213693952', '', '1.5']);
}

function fieldType(rng: Rng): string {
  if (rng.chance(0.03)) return rng.pick(['u64', 'i65', 'i0', 'I8', 'u', 'x8', 'i08', 'u-1']);
  const signed = rng.chance(0.5);
  const bits = rng.chance(0.3) ? rng.pick([1, 8, 16, 32, 63, 64]) : rng.between(1, 64);
  return signed ? `i${bits}` : `u${Math.min(bits, 63)}`;
}

function value(rng: Rng): string {
  return rng.chance(0.4) ? rng.pick(kBigValues) : String(rng.between(-300, 300));
}

function bitfieldOps(rng: Rng, ro: boolean): string[] {
  const out: string[] = [];
  for (let n = rng.between(0, 5); n > 0; n--) {
    const r = rng.next();
    if (r < 0.35 || (ro && r < 0.95)) out.push('GET', fieldType(rng), offset(rng));
    else if (r < 0.6) out.push('SET', fieldType(rng), offset(rng), value(rng));
    else if (r < 0.85) out.push('INCRBY', fieldType(rng), offset(rng), value(rng));
    else if (r < 0.97) out.push('OVERFLOW', rng.pick(['WRAP', 'SAT', 'FAIL', 'sat', 'fail']));
    else out.push(rng.pick(['OVERFLOW', 'GET', 'BOGUS', 'SET']), ...(rng.chance(0.5) ? ['i8'] : []));
  }
  if (ro && rng.chance(0.05)) out.push('SET', 'i8', '0', '1');
  return out;
}

function range(rng: Rng, max: number): string[] {
  const n = rng.int(max + 1);
  const out: string[] = [];
  if (n >= 1) out.push(rng.chance(0.05) ? 'x' : rng.pick(kIdx));
  if (n >= 2) out.push(rng.chance(0.05) ? 'x' : rng.pick(kIdx));
  if (n >= 3) out.push(rng.pick(['BIT', 'BYTE', 'bit', 'byte', 'BITS']));
  return out;
}

export const bitmapFamily: CollectionFamily = {
  name: 'bitmaps',
  step(rng, key): Step[] {
    const k = key();
    const r = rng.next();
    if (r < 0.25) return [exact('SETBIT', k, rng.chance(0.95) ? offset(rng).replace('#', '') : offset(rng), rng.pick(['0', '1', '1', '2', 'x', '-1']))];
    if (r < 0.32) return [exact('GETBIT', k, offset(rng).replace('#', ''))];
    if (r < 0.42) return [exact('BITCOUNT', k, ...range(rng, 3))];
    if (r < 0.54) return [exact('BITPOS', k, rng.pick(['0', '1', '1', '0', '2', 'x']), ...range(rng, 3))];
    if (r < 0.62) {
      const op = rng.pick(['AND', 'OR', 'XOR', 'NOT', 'and', 'nand']);
      const n = op === 'NOT' && rng.chance(0.9) ? 1 : rng.between(1, 3);
      return [exact('BITOP', op, key(), ...Array.from({ length: n }, () => key())), exact('GET', k)];
    }
    if (r < 0.8) return [exact('BITFIELD', k, ...bitfieldOps(rng, false))];
    if (r < 0.86) return [exact('BITFIELD_RO', k, ...bitfieldOps(rng, true))];
    if (r < 0.91) return [exact('GET', k)];
    if (r < 0.94) return [exact('SET', k, rng.pick(['foobar', '\xff\xf0\x00', '\x00', '', '123', 'ab\x00\xffcd']))];
    if (r < 0.96) return [exact('DEL', k)];
    if (r < 0.98) return [exact('RPUSH', k, 'x')];
    return [exact(rng.pick(['SETBIT', 'GETBIT', 'BITCOUNT', 'BITPOS', 'BITOP', 'BITFIELD']))]; // wrong arity
  },
  dump: (keys) => keys.flatMap((k) => [exact('GET', k), exact('BITCOUNT', k)]),
  edges: [
    exact('SETBIT', 'b', '7', '1'), exact('SETBIT', 'b', '7', '1'), exact('SETBIT', 'b', '100', '1'), exact('GET', 'b'),
    // the limit is proto-max-bulk-len (512mb: offset 2^32 - 1); at 1mb, 8388607 is the last bit
    exact('CONFIG', 'SET', 'proto-max-bulk-len', '1mb'), exact('SETBIT', 'b', '8388608', '1'), exact('GETBIT', 'b', '8388608'),
    exact('BITFIELD', 'b', 'GET', 'u8', '8388608'), exact('BITFIELD', 'b', 'SET', 'u8', '8388600', '1'), exact('STRLEN', 'b'),
    exact('SETBIT', 'b', '8388607', '1'), exact('STRLEN', 'b'), exact('BITCOUNT', 'b'), exact('BITPOS', 'b', '1', '-1'),
    exact('GETBIT', 'b', '8388607'), exact('CONFIG', 'SET', 'proto-max-bulk-len', '512mb'), exact('DEL', 'b'),
    exact('SETBIT', 'b', '4294967296', '1'), exact('GETBIT', 'b', '4294967296'), exact('SETBIT', 'b', '1', '2'),
    exact('SETBIT', 'b', 'x', '2'), exact('SETBIT', 'b', '-1', 'x'), exact('SETBIT', 'b', '1', '-1'),
    exact('SET', 's', '\xff\xf0\x00'), exact('BITPOS', 's', '0'), exact('BITPOS', 's', '1', '2'), exact('BITPOS', 's', '0', '0', '-1'),
    exact('BITPOS', 's', '0', '0', '11', 'BIT'), exact('BITPOS', 's', '0', '0', '12', 'BIT'), exact('BITPOS', 's', '1', '12', '23', 'BIT'),
    exact('SET', 'ones', '\xff\xff'), exact('BITPOS', 'ones', '0'), exact('BITPOS', 'ones', '0', '0'), exact('BITPOS', 'ones', '0', '0', '-1'),
    exact('BITPOS', 'ones', '0', '1', '0'), exact('BITPOS', 'ones', '0', 'x', '0', 'BOT'), exact('BITPOS', 'ones', '0', '0', 'x', 'BOT'),
    exact('BITPOS', 'ones', '2', 'x'), exact('BITPOS', 'nokey', '0', 'x'), exact('BITPOS', 'nokey', '1', 'x'), exact('SET', 'e', ''),
    exact('BITPOS', 'e', '0'), exact('BITPOS', 'e', '1'), exact('BITCOUNT', 'e'), exact('BITCOUNT', 'e', '0', '-1'),
    exact('BITCOUNT', 'ones', '1'), exact('BITCOUNT', 'nokey', '1'), exact('BITCOUNT', 'ones', '-1', '-2'), exact('BITCOUNT', 'ones', '3', '1', 'BIT'),
    exact('BITCOUNT', 'ones', '0', '0', 'bit'), exact('BITCOUNT', 'ones', '1', '14', 'BIT'), exact('BITCOUNT', 'ones', '0', '0', 'BIT', 'x'),
    exact('BITOP', 'NOT', 'd', 's', 'ones'), exact('BITOP', 'AND', 'd', 'nokey'), exact('EXISTS', 'd'), exact('BITOP', 'NOT', 'd', 's'),
    exact('GET', 'd'), exact('SET', 'd', 'x', 'EX', '100'), exact('BITOP', 'OR', 'd', 's', 'ones'), exact('TTL', 'd'), exact('GET', 'd'),
    exact('RPUSH', 'l', 'a'), exact('BITOP', 'XOR', 'd', 's', 'l'), exact('BITOP', 'XOR', 'l', 's'), exact('TYPE', 'l'), exact('GET', 'l'),
    exact('BITOP', 'bogus', 'd', 's'), exact('SETBIT', 'l', '1', '1'), exact('GETBIT', 'l', '1'), exact('BITCOUNT', 'l', 'x'),
    exact('BITFIELD', 'bf', 'SET', 'i8', '0', '-100', 'GET', 'i8', '0', 'GET', 'u8', '0', 'INCRBY', 'u2', '100', '1', 'OVERFLOW', 'SAT',
      'INCRBY', 'u2', '102', '1', 'GET', 'u4', '100'),
    exact('BITFIELD', 'bf', 'OVERFLOW', 'FAIL', 'INCRBY', 'i8', '0', '-100', 'GET', 'i8', '0'), exact('GET', 'bf'),
    exact('BITFIELD', 'bf', 'SET', 'u8', '#1', '255', 'GET', 'u8', '#1', 'GET', 'i64', '0', 'SET', 'i64', '0', '-1', 'GET', 'i64', '0'),
    exact('BITFIELD', 'bf', 'OVERFLOW', 'SAT', 'SET', 'u8', '0', '-1', 'SET', 'i8', '8', '-9223372036854775808', 'SET', 'u8', '16', '300'),
    exact('BITFIELD', 'bf', 'OVERFLOW', 'WRAP', 'SET', 'u8', '0', '-1', 'SET', 'i8', '8', '-9223372036854775808', 'SET', 'u8', '16', '300'),
    exact('BITFIELD', 'bf', 'OVERFLOW', 'FAIL', 'SET', 'u63', '0', '-1', 'SET', 'i1', '8', '-1', 'INCRBY', 'i64', '0', '-9223372036854775808'),
    exact('BITFIELD', 'bf', 'OVERFLOW', 'SAT', 'INCRBY', 'i64', '0', '9223372036854775807', 'INCRBY', 'i64', '0', '9223372036854775807'),
    exact('BITFIELD', 'bf', 'OVERFLOW', 'WRAP', 'INCRBY', 'i64', '0', '9223372036854775807', 'INCRBY', 'i64', '0', '-9223372036854775808'),
    exact('BITFIELD', 'bf', 'GET', 'u63', '1', 'GET', 'i64', '3', 'INCRBY', 'u63', '1', '-1', 'INCRBY', 'i1', '3', '1'), exact('GET', 'bf'),
    exact('BITFIELD', 'fail', 'OVERFLOW', 'FAIL', 'INCRBY', 'u2', '100', '9'), exact('GET', 'fail'),
    exact('BITFIELD', 'bf'), exact('BITFIELD', 'nokey'), exact('EXISTS', 'nokey'), exact('BITFIELD', 'l'), exact('BITFIELD', 'l', 'GET', 'x', '0'),
    exact('BITFIELD', 'bf', 'GET', 'i8'), exact('BITFIELD', 'bf', 'OVERFLOW'), exact('BITFIELD', 'bf', 'OVERFLOW', 'x', 'GET', 'i8', 'x'),
    exact('BITFIELD', 'bf', 'GET', 'i8', '#-1'), exact('BITFIELD', 'bf', 'GET', 'i8', '#2305843009213693952'),
    exact('BITFIELD', 'bf', 'GET', 'u8', '4294967296'),
    exact('BITFIELD', 'bf', 'GET', 'i\x008', '0'), exact('BITFIELD', 'bf', 'GET', 'i8\x00x', '0'), exact('BITFIELD', 'bf', 'SET', 'i8', '0', '1.5'),
    exact('BITFIELD_RO', 'bf', 'GET', 'i8', '0', 'INCRBY', 'i8', '0', '1'), exact('BITFIELD_RO', 'bf', 'SET', 'i8', '0', 'x'),
    exact('BITFIELD_RO', 'bf', 'GET', 'u4', '4', 'GET', 'i4', '4'), exact('BITFIELD_RO', 'nokey', 'GET', 'u4', '4'), exact('BITFIELD_RO', 'l'),
  ],
};
