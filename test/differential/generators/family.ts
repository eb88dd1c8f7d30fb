/**
 * What a command family contributes to the differential tests: weighted random command makers
 * and a deterministic list of edge cases. Adding a family (hashes, lists…) = one file exporting a
 * `Family`, added to the list its test file runs; the oracle and the modes stay as they are.
 */
import type { Cmd } from '../oracle';
import type { Rng } from '../prng';

export interface GenContext {
  rng: Rng;
  ks: Keyspace;
}

export interface CommandGen {
  name: string;
  weight: number;
  /** reads or writes outside the session's own keys (DBSIZE, FLUSHDB…): left out when sessions run at once */
  wholeKeyspace?: boolean;
  make(ctx: GenContext): Cmd;
  /** commands sent just before it (see keys.ts DBSIZE) */
  before?(ctx: GenContext): Cmd[];
}

export interface Family {
  name: string;
  commands: CommandGen[];
  /** deterministic edge cases over ks; run in every mode (exclusive: no other session runs) */
  edges(ks: Keyspace, exclusive: boolean): Cmd[];
}

const latin1 = (s: string) => Buffer.from(s, 'latin1');

// Suffixes of the session's keys: few, so commands collide on them; binary ones included.
const kKeySuffixes = ['a', 'b', 'c', 'n', '\x00', '\xff\r\n', ''].map(latin1);

/**
 * A session's keys: prefix + a few suffixes, in a few dbs. With the empty prefix the empty key
 * is one of them (legal in Redis).
 */
export class Keyspace {
  readonly keys: Buffer[];
  /** keys edge cases made with named(): dumped too */
  private readonly extra = new Map<string, Buffer>();
  constructor(readonly prefix: string, readonly dbs: readonly number[] = [0, 1, 2, 15]) {
    this.keys = kKeySuffixes.map((s) => Buffer.concat([latin1(prefix), s]));
  }
  key(rng: Rng): Buffer {
    return rng.pick(this.keys);
  }
  /** 1..max keys, duplicates likely */
  someKeys(rng: Rng, max: number): Buffer[] {
    return Array.from({ length: rng.between(1, max) }, () => this.key(rng));
  }
  named(suffix: string): Buffer {
    const k = Buffer.concat([latin1(this.prefix), latin1(suffix)]);
    this.extra.set(suffix, k);
    return k;
  }
  /** touch(): EXISTS over every key the session may have written */
  touch(): Cmd {
    return ['EXISTS', ...this.keys, ...this.extra.values()];
  }
  /**
   * Reads back every key in every db, then returns to db 0: catches state the replies hid.
   * DBSIZE comes after every key was touched: Redis counts a key whose TTL passed (SET … PXAT 1)
   * until an access or its active expire cycle reclaims it, which is timing, not semantics.
   */
  dump(exclusive: boolean): Cmd[] {
    const all = [...this.keys, ...this.extra.values()];
    const out: Cmd[] = [];
    for (const db of this.dbs) {
      out.push(['SELECT', String(db)], ['MGET', ...all], ['EXISTS', ...all]);
      if (exclusive) out.push(['DBSIZE']);
    }
    out.push(['SELECT', '0']);
    return out;
  }
}

// Values that parse as integers, almost do, overflow, or are binary.
export const kValues: readonly Buffer[] = [
  '', 'x', 'hello', '0', '1', '-1', '10', '-0', '01', '+1', ' 1', '1 ', '1.5', '1e3', '0x10', 'abc',
  '9223372036854775807', '-9223372036854775808', '9223372036854775806', '-9223372036854775807',
  '9223372036854775808', '-9223372036854775809', '18446744073709551616', '99999999999999999999',
  '\x00', '\xff', 'a\r\nb', '\r\n', '1\x00', '\x001',
].map(latin1);

export function value(rng: Rng): Buffer {
  const r = rng.next();
  if (r < 0.6) return rng.pick(kValues);
  if (r < 0.7) return latin1(String(rng.between(-1000, 1000)));
  if (r < 0.995) return rng.bytes(rng.between(1, 48));
  return rng.bytes(rng.between(4096, 70000)); // bigger than one TCP segment and one Postgres page
}

export const kIntArgs: readonly string[] = [
  '0', '1', '-1', '2', '100', '-100', '9223372036854775807', '-9223372036854775808', '9223372036854775806',
  '-9223372036854775807', '9223372036854775808', '-9223372036854775809', '4611686018427387904',
  'abc', '', '1.0', '01', '-0', '+1', ' 1', '1 ', '0x1', '1e2', '18446744073709551616',
];

export function intArg(rng: Rng): string {
  return rng.chance(0.6) ? rng.pick(kIntArgs) : String(rng.between(-100000, 100000));
}

/** A random sequence drawn from the families' weighted commands. */
export function sequence(families: readonly Family[], ctx: GenContext, n: number, exclusive: boolean): Cmd[] {
  const gens = families.flatMap((f) => f.commands).filter((g) => exclusive || !g.wholeKeyspace);
  const total = gens.reduce((s, g) => s + g.weight, 0);
  const out: Cmd[] = [];
  for (let i = 0; i < n; i++) {
    let r = ctx.rng.next() * total;
    const g = gens.find((x) => (r -= x.weight) < 0) ?? gens[gens.length - 1];
    if (g.before) out.push(...g.before(ctx));
    out.push(g.make(ctx));
  }
  return out;
}

/** Every family's edge cases, with a dump of the keyspace after each family. */
export function edges(families: readonly Family[], ks: Keyspace, exclusive: boolean): Cmd[] {
  return families.flatMap((f) => [...f.edges(ks, exclusive), ...ks.dump(exclusive)]);
}
