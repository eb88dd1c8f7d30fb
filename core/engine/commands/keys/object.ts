/**
 * OBJECT ENCODING | FREQ | IDLETIME | REFCOUNT key, OBJECT HELP. Postgres keeps no encodings,
 * access times or shared objects, so the answers are plausible, not observed:
 *   ENCODING  strings by Redis's rules for a value as written by SET: "int" (an integer of at most
 *             20 chars), "embstr" (≤ 44 bytes), "raw" (APPEND/SETRANGE results are "raw" in Redis
 *             even when short; here they follow the same rules as SET). Collections: by element
 *             count (kv.card when present) against Redis 7.0's default listpack limits.
 *   REFCOUNT  2147483647 for integers 0…9999 (Redis's shared integers), else 1.
 *   IDLETIME  0; FREQ errors unless maxmemory-policy names an LFU policy (then 0), as in Redis.
 * https://redis.io/commands/object/
 */
import { RespError, Simple, type Reply } from '../../reply';
import { parseI64 } from '../args';
import { defineCommand } from '../define';
import type { CommandSpec } from '../spec';
import { dbArg, nowArg } from '../exec';
import { kKeySql } from './sql';

const kAdjust = 'Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.';
const kNoLfu = new RespError(`ERR An LFU maxmemory policy is not selected, access frequency not tracked. ${kAdjust}`);
const kLfu = new RespError(`ERR An LFU maxmemory policy is selected, idle time not tracked. ${kAdjust}`);

interface KeyInfo { type: number; len: number; small: Buffer | null; card: number | null }

/** Redis's tryObjectEncoding test: string2l on at most 20 bytes */
function asInt(v: Buffer | null): bigint | undefined {
  if (v === null || v.length > 20) return undefined;
  return parseI64(v);
}

function encoding(k: KeyInfo): string {
  const small = (k.card ?? 0) <= 128;
  switch (k.type) {
    case 0: return asInt(k.small) !== undefined ? 'int' : k.len <= 44 ? 'embstr' : 'raw';
    case 1: return small ? 'listpack' : 'hashtable';
    case 2: return 'quicklist';
    case 3: return 'hashtable';
    case 5: return 'stream';
    default: return small ? 'listpack' : 'skiplist';
  }
}

function sub(name: string, summary: string, answer: (s: Parameters<CommandSpec['run']>[0], k: KeyInfo) => Reply): CommandSpec {
  return defineCommand({
    name: `object|${name}`, arity: 3, flags: ['readonly'], keys: { first: 2, last: 2, step: 1 },
    acl: ['keyspace', 'read', 'slow'], group: 'generic', since: name === 'freq' ? '4.0.0' : '2.2.3', summary,
    tips: ['nondeterministic_output'],
    run: (s, argv) => s.server.store.exec(s, kKeySql.object, [dbArg(s), argv[2], nowArg()], (rows) => {
      if (rows.length === 0) return null;
      const [type, len, small, card] = rows[0];
      return answer(s, { type: type as number, len: Number(len), small: small as Buffer | null, card: card === null ? null : Number(card) });
    }),
  });
}

const lfu = (s: Parameters<CommandSpec['run']>[0]) => s.server.config.str('maxmemory-policy').includes('lfu');

const subcommands = [
  sub('encoding', 'Returns the internal encoding of a Redis object.', (_s, k) => encoding(k)),
  sub('freq', 'Returns the logarithmic access frequency counter of a Redis object.', (s) => (lfu(s) ? 0 : kNoLfu)),
  sub('idletime', 'Returns the time since the last access to a Redis object.', (s) => (lfu(s) ? kLfu : 0)),
  sub('refcount', 'Returns the reference count of a value of a key.', (_s, k) => {
    const n = k.type === 0 ? asInt(k.small) : undefined;
    return n !== undefined && n >= 0n && n < 10000n ? 2147483647 : 1;
  }),
];

const kHelp = [
  'OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'ENCODING <key>',
  '    Return the kind of internal representation used in order to store the value',
  '    associated with a <key>.',
  'FREQ <key>',
  '    Return the access frequency index of the <key>. The returned integer is',
  '    proportional to the logarithm of the recent access frequency of the key.',
  'IDLETIME <key>',
  '    Return the idle time of the <key>, that is the approximated number of',
  '    seconds elapsed since the last access to the key.',
  'REFCOUNT <key>',
  '    Return the number of references of the value associated with the specified',
  '    <key>.',
  'HELP',
  '    Prints this help.',
].map((l) => new Simple(l));

export const object = defineCommand({
  name: 'object', arity: -2, group: 'generic', since: '2.2.3', acl: ['slow'],
  summary: 'A container for object introspection commands.',
  subcommands: [...subcommands, defineCommand({
    name: 'object|help', arity: 2, flags: ['loading', 'stale'], acl: ['keyspace', 'slow'], group: 'generic',
    since: '6.2.0', summary: 'Returns helpful text about the different subcommands.', run: () => kHelp,
  })],
  run: () => null,
});
