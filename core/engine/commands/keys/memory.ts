/**
 * MEMORY USAGE key [SAMPLES count], MEMORY HELP. The figure is what Redis 7.0 would allocate for
 * the key (jemalloc size classes: robj 16 B, sds headers, dictEntry 24 B), from the key's and
 * value's lengths — checked against redis-server for int/embstr/raw strings. Collections: their
 * rows' stored size (pg_column_size) plus the same per-key overhead. Postgres's own footprint
 * (tuple headers, indexes, TOAST) is not what clients size their memory by, so it is left out.
 * https://redis.io/commands/memory-usage/
 */
import { Simple } from '../../reply';
import { Err } from '../../resp-errors';
import { lower, parseI64 } from '../args';
import { defineCommand } from '../define';
import { dbArg, nowArg } from '../exec';
import { kKeySql } from './sql';


/** jemalloc's size class of an n-byte allocation */
export function sizeClass(n: number): number {
  if (n <= 8) return 8;
  if (n <= 128) return Math.ceil(n / 16) * 16;
  const step = 2 ** Math.floor(Math.log2(n - 1)) / 4;
  return Math.ceil(n / step) * step;
}

const sdsHeader = (n: number, short = false) => (short && n < 32 ? 1 : n < 256 ? 3 : n < 65536 ? 5 : 9);

/** bytes Redis would use for a key of this length holding a string value of these bytes */
export function stringUsage(keyLen: number, valueLen: number, isInt: boolean): number {
  const key = sizeClass(sdsHeader(keyLen, true) + keyLen + 1);
  let value: number;
  if (isInt) value = 16;
  else if (valueLen <= 44) value = sizeClass(16 + 3 + valueLen + 1);
  else value = 16 + sizeClass(sdsHeader(valueLen) + valueLen + 1);
  return key + value + 24;
}

const kHelp = [
  'MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'USAGE <key> [SAMPLES <count>]',
  '    Return memory in bytes used by <key> and its value. Nested values are',
  '    sampled up to <count> times (default: 5, 0 means sample all).',
  'HELP',
  '    Prints this help.',
].map((l) => new Simple(l));

const usage = defineCommand({
  name: 'memory|usage', arity: -3, flags: ['readonly'], keys: { first: 2, last: 2, step: 1 }, acl: ['read', 'slow'],
  group: 'server', since: '4.0.0', summary: 'Estimates the memory usage of a key.', complexity: 'O(N) where N is the number of samples.',
  run(s, argv) {
    for (let j = 3; j < argv.length; j += 2) {
      if (lower(argv[j]) !== 'samples' || j + 1 >= argv.length) return Err.syntax;
      const n = parseI64(argv[j + 1]);
      if (n === undefined) return Err.notInteger;
      if (n < 0n) return Err.syntax;
    }
    const key = argv[2];
    return s.server.store.exec(s, kKeySql.memoryUsage, [dbArg(s), key, nowArg()], (rows) => {
      if (rows.length === 0) return null;
      const [type, bytes, small] = rows[0] as [number, string, Buffer | null];
      if (type !== 0) return stringUsage(key.length, 0, true) + Number(bytes);
      return stringUsage(key.length, Number(bytes), small !== null && parseI64(small) !== undefined);
    });
  },
});

export const memory = defineCommand({
  name: 'memory', arity: -2, group: 'server', since: '4.0.0', acl: ['slow'], summary: 'A container for memory diagnostics commands.',
  subcommands: [usage, defineCommand({
    name: 'memory|help', arity: 2, flags: ['loading', 'stale'], acl: ['slow'], group: 'server', since: '4.0.0',
    summary: 'Returns helpful text about the different subcommands.', run: () => kHelp,
  })],
  run: () => null,
});
