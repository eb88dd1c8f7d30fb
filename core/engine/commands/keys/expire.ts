/**
 * EXPIRE key seconds | PEXPIRE key ms | EXPIREAT key ts | PEXPIREAT key ms-ts, each with
 * [NX | XX | GT | LT] — one generic expire(unit, absolute), like Valkey's expireGenericCommand:
 * options first, then the number (negative allowed; only overflow is an error); a time already
 * past deletes the key. 1 when set (or deleted), 0 when the key is missing or a condition failed.
 * https://redis.io/commands/expire/
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { lower, parseI64 } from '../args';
import { defineCommand } from '../define';
import { expireEvents } from './events';
import { kOneKey, type CommandSpec } from '../spec';
import { dbArg, nowArg } from '../exec';
import { kKeySql } from './sql';

const kI64Max = 9223372036854775807n;
const kI64Min = -9223372036854775808n;
const kFlags = new Map([['nx', 1], ['xx', 2], ['gt', 4], ['lt', 8]]);
const kNxWith = new RespError('ERR NX and XX, GT or LT options at the same time are not compatible');
const kGtLt = new RespError('ERR GT and LT options at the same time are not compatible');

function parseFlags(argv: Buffer[]): number | RespError {
  let flags = 0;
  for (let i = 3; i < argv.length; i++) {
    const f = kFlags.get(lower(argv[i]));
    if (f === undefined) {
      const text = argv[i].toString('latin1');
      return new RespError(`ERR Unsupported option ${text.includes('\0') ? text.slice(0, text.indexOf('\0')) : text}`);
    }
    flags |= f;
  }
  if ((flags & 1) && (flags & 14)) return kNxWith;
  return (flags & 4) && (flags & 8) ? kGtLt : flags;
}

function expire(name: string, unit: 's' | 'ms', absolute: boolean, since: string, summary: string): CommandSpec {
  return defineCommand({
    name, arity: -3, flags: ['write', 'fast'], keys: kOneKey, acl: ['keyspace', 'write', 'fast'],
    events: expireEvents(unit === 's' ? 1000 : 1, absolute),
    group: 'generic', since, summary, complexity: 'O(1)',
    run(s, argv) {
      const flags = parseFlags(argv);
      if (flags instanceof RespError) return flags;
      let when = parseI64(argv[2]);
      if (when === undefined) return Err.notInteger;
      if (unit === 's') {
        if (when > kI64Max / 1000n || when < kI64Min / 1000n) return Err.invalidExpire(name);
        when *= 1000n;
      }
      const now = BigInt(Date.now());
      const base = absolute ? 0n : now;
      if (when > kI64Max - base) return Err.invalidExpire(name);
      when += base;
      return s.server.store.exec(s, kKeySql.expireAt, [dbArg(s), argv[1], String(when), String(flags), nowArg(now)],
        (rows) => rows[0][0] as number);
    },
  });
}

export const expireCmd = expire('expire', 's', false, '1.0.0', 'Sets the expiration time of a key in seconds.');
export const pexpire = expire('pexpire', 'ms', false, '2.6.0', 'Sets the expiration time of a key in milliseconds.');
export const expireat = expire('expireat', 's', true, '1.2.0', 'Sets the expiration time of a key to a Unix timestamp.');
export const pexpireat = expire('pexpireat', 'ms', true, '2.6.0', 'Sets the expiration time of a key to a Unix milliseconds timestamp.');
