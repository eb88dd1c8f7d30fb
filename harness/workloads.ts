// The test catalogue: valkey-benchmark's default tests with its titles and command lines
// (src/valkey-benchmark.c main()), the mixed SET:GET workload and a command given on the line.
// `__rand_int__` / `__rand_1st__` are key placeholders (replaced when -r is given), `__data__`
// is the value of -d bytes.

import { OptionsError, type HarnessOptions } from './options';

export interface CommandTemplate {
  args: string[];
  /** Sent as an inline command ("PING\r\n") instead of a RESP array. */
  inline?: boolean;
}

export interface TestSpec {
  /** Name as given to -t. */
  name: string;
  /** Name in the output, exactly as valkey-benchmark prints it. */
  title: string;
  commands: CommandTemplate[];
  /** Relative frequency of each command; one command = weight 1. */
  weights: number[];
}

const kData = '__data__';

function single(name: string, title: string, args: string[], inline = false): TestSpec {
  return { name, title, commands: [{ args, inline }], weights: [1] };
}

function catalogue(o: HarnessOptions): TestSpec[] {
  const zaddScore = o.randomKeys ? '__rand_int__' : '0';
  const mset = ['MSET'];
  const mget = ['MGET'];
  for (let i = 0; i < 10; i++) {
    mset.push('key:__rand_int__', kData);
    mget.push('key:__rand_int__');
  }
  return [
    single('ping_inline', 'PING_INLINE', ['PING'], true),
    single('ping_mbulk', 'PING_MBULK', ['PING']),
    single('set', 'SET', ['SET', 'key:__rand_int__', kData]),
    single('get', 'GET', ['GET', 'key:__rand_int__']),
    single('incr', 'INCR', ['INCR', 'counter:__rand_int__']),
    single('lpush', 'LPUSH', ['LPUSH', 'mylist', kData]),
    single('rpush', 'RPUSH', ['RPUSH', 'mylist', kData]),
    single('lpop', 'LPOP', ['LPOP', 'mylist']),
    single('rpop', 'RPOP', ['RPOP', 'mylist']),
    single('sadd', 'SADD', ['SADD', 'myset', 'element:__rand_int__']),
    single('hset', 'HSET', ['HSET', 'myhash', 'element:__rand_int__', kData]),
    single('spop', 'SPOP', ['SPOP', 'myset']),
    single('zadd', 'ZADD', ['ZADD', 'myzset', zaddScore, 'element:__rand_1st__']),
    single('zpopmin', 'ZPOPMIN', ['ZPOPMIN', 'myzset']),
    single('lrange_fill', 'LPUSH (needed to benchmark LRANGE)', ['LPUSH', 'mylist', kData]),
    single('lrange_100', 'LRANGE_100 (first 100 elements)', ['LRANGE', 'mylist', '0', '99']),
    single('lrange_300', 'LRANGE_300 (first 300 elements)', ['LRANGE', 'mylist', '0', '299']),
    single('lrange_500', 'LRANGE_500 (first 500 elements)', ['LRANGE', 'mylist', '0', '499']),
    single('lrange_600', 'LRANGE_600 (first 600 elements)', ['LRANGE', 'mylist', '0', '599']),
    single('mset', 'MSET (10 keys)', mset),
    single('mget', 'MGET (10 keys)', mget),
    single('xadd', 'XADD', ['XADD', 'mystream', '*', 'myfield', kData]),
  ];
}

/** What valkey-benchmark (as Redis 7 ships it) runs with no -t: everything above but mget, xadd. */
const kNotDefault = new Set(['mget', 'xadd']);
/** -t names that select several tests. */
const kGroups: Record<string, string[]> = {
  ping: ['ping_inline', 'ping_mbulk'],
  lrange: ['lrange_100', 'lrange_300', 'lrange_500', 'lrange_600'],
};

export const kTestNames = ['ping_inline', 'ping_mbulk', 'set', 'get', 'incr', 'lpush', 'rpush', 'lpop', 'rpop', 'sadd', 'hset', 'spop',
  'zadd', 'zpopmin', 'lrange_100', 'lrange_300', 'lrange_500', 'lrange_600', 'mset', 'mget', 'xadd'];

/** The tests to run, in valkey-benchmark's order. */
export function selectTests(o: HarnessOptions): TestSpec[] {
  if (o.command.length > 0) {
    return [single('custom', o.command.join(' '), o.command)];
  }
  if (o.ratio !== null) {
    const get = catalogue(o)[3];
    const set = catalogue(o)[2];
    return [{ name: 'set:get', title: `SET:GET ${o.ratio.set}:${o.ratio.get}`, commands: [set.commands[0], get.commands[0]], weights: [o.ratio.set, o.ratio.get] }];
  }
  const all = catalogue(o);
  if (o.tests === null) return all.filter((t) => !kNotDefault.has(t.name));
  const wanted = new Set<string>();
  for (const name of o.tests) {
    const expanded = kGroups[name] ?? [name];
    for (const n of expanded) {
      if (!kTestNames.includes(n)) throw new OptionsError(`-t: unknown test "${name}" (known: ${kTestNames.join(', ')}, ping, lrange)`);
      wanted.add(n);
    }
  }
  // valkey fills the list once before any LRANGE test.
  if ([...wanted].some((n) => n.startsWith('lrange_'))) wanted.add('lrange_fill');
  return all.filter((t) => wanted.has(t.name));
}

/** valkey-benchmark's genBenchmarkRandomData (#7196): the same bytes for the same -d. */
export function benchmarkData(size: number): Buffer {
  const data = Buffer.allocUnsafe(size);
  let state = 1234;
  for (let i = 0; i < size; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    data[i] = 48 + ((state >>> 16) & 63);
  }
  return data;
}

export const kDataPlaceholder = kData;
