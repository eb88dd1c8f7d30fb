/**
 * TTL key | PTTL key | EXPIRETIME key | PEXPIRETIME key — one generic ttl(ms, absolute), like
 * Valkey's ttlGenericCommand: -2 missing, -1 no TTL, else the time left (or the deadline), in
 * seconds rounded to nearest ((ms + 500) / 1000) or in ms.
 * https://redis.io/commands/ttl/
 */
import { defineCommand } from '../define';
import { kOneKey, type CommandSpec } from '../spec';
import { dbArg, int8Reply, nowArg } from '../exec';
import { kKeySql } from './sql';


function ttl(name: string, ms: boolean, absolute: boolean, since: string, summary: string): CommandSpec {
  return defineCommand({
    name, arity: 2, flags: ['readonly', 'fast'], keys: kOneKey, acl: ['keyspace', 'read', 'fast'],
    tips: absolute ? undefined : ['nondeterministic_output'],
    group: 'generic', since, summary, complexity: 'O(1)',
    run(s, argv) {
      const now = Date.now();
      return s.server.store.exec(s, kKeySql.ttl, [dbArg(s), argv[1], nowArg(now)], (rows) => {
        if (rows.length === 0) return -2;
        if (rows[0][0] === null) return -1;
        let t = BigInt(rows[0][0] as string) - (absolute ? 0n : BigInt(now));
        if (t < 0n) t = 0n;
        return int8Reply(String(ms ? t : (t + 500n) / 1000n));
      });
    },
  });
}

export const ttlCmd = ttl('ttl', false, false, '1.0.0', 'Returns the expiration time in seconds of a key.');
export const pttl = ttl('pttl', true, false, '2.6.0', 'Returns the expiration time in milliseconds of a key.');
export const expiretime = ttl('expiretime', false, true, '7.0.0', 'Returns the expiration time of a key as a Unix timestamp.');
export const pexpiretime = ttl('pexpiretime', true, true, '7.0.0', 'Returns the expiration time of a key as a Unix milliseconds timestamp.');
