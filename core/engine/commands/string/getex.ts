/**
 * GETEX key [EX s | PX ms | EXAT ts | PXAT ms-ts | PERSIST] — the value, and sets or clears the
 * TTL. As in Redis, a missing key answers nil and another type WRONGTYPE before the expire
 * value is validated; only the syntax is checked first.
 * https://redis.io/commands/getex/
 */
import { RespError } from '../../reply';
import { Noted } from '../../pending-reply';
import { Err } from '../../resp-errors';
import { lower } from '../args';
import { defineCommand } from '../define';
import { getexEvents } from './events';
import { expireAt, type ExpireUnit } from '../expiry';
import { dbArg, nowArg } from '../exec';
import { kOneKey } from '../spec';
import { kStringSql } from './sql';

const enum Mode { Read = 0, Expire = 1, Persist = 2 }

/** [mode, expire unit, its argument] or a syntax error */
function parseGetex(argv: Buffer[]): [Mode, ExpireUnit?, Buffer?] | RespError {
  let mode = Mode.Read;
  let unit: ExpireUnit | undefined;
  let arg: Buffer | undefined;
  for (let i = 2; i < argv.length; i++) {
    const o = lower(argv[i]);
    if (o === 'persist' && unit === undefined) mode = Mode.Persist;
    else if ((o === 'ex' || o === 'px' || o === 'exat' || o === 'pxat') && mode !== Mode.Persist &&
      (unit === undefined || unit === o) && i + 1 < argv.length) {
      mode = Mode.Expire;
      unit = o;
      arg = argv[++i];
    } else return Err.syntax;
  }
  return [mode, unit, arg];
}

export const getex = defineCommand({
  name: 'getex', arity: -2, flags: ['write', 'fast'], keys: kOneKey, acl: ['write', 'string', 'fast'],
  events: getexEvents,
  group: 'string', since: '6.2.0', summary: 'Returns the string value of a key after setting its expiration time.',
  complexity: 'O(1)',
  run(s, argv) {
    const parsed = parseGetex(argv);
    if (parsed instanceof RespError) return parsed;
    const [mode, unit, arg] = parsed;
    const now = Date.now();
    const at = unit === undefined ? null : expireAt(unit, arg!, 'getex', now);
    // an invalid expire value only reads: the error is the reply once the key proved a string
    const badExpire = at instanceof RespError ? at : undefined;
    const values = [dbArg(s), argv[1], String(badExpire ? Mode.Read : mode), typeof at === 'number' ? String(at) : null, nowArg(now)];
    return s.server.store.exec(s, kStringSql.getex, values, (rows) => {
      const status = rows[0][0] as number;
      if (status === 0) return null;
      if (status === 2) return Err.wrongType;
      return badExpire ?? new Noted(rows[0][1] as Buffer, rows[0][2] === true ? 1 : 0);
    });
  },
});

