/**
 * Random picks: HRANDFIELD, SRANDMEMBER and ZRANDMEMBER take uniform picks in SQL
 * (random-sql.ts: what each form costs); SPOP probes the (key, h) index at a random h, which
 * favours elements after wide gaps (set/functions.ts s_pop).
 */
import { RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import type { KeyType, Rows, Statement } from '../../key-store';
import type { PendingReply } from '../../pending-reply';
import type { Session } from '../../session';
import { eqIgnoreCase, parseI64 } from '../args';
import { dbArg, exec, nowArg, typedRead } from '../exec';

const kLongMax = 9223372036854775807n;
const kOutOfRange = new RespError('ERR value is out of range');
const kCountRange = new RespError('ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807');

export const randomH = (): number => Math.floor(Math.random() * 2147483648);

/**
 * The count of HRANDFIELD / ZRANDMEMBER / SRANDMEMBER in Redis's order of checks: an integer in
 * ±LONG_MAX, then the syntax of what follows, then (with values) ±LONG_MAX/2.
 */
export function parseRandCount(arg: Buffer, syntaxError: boolean, withValues: boolean): number | RespError {
  const v = parseI64(arg);
  if (v === undefined) return Err.notInteger;
  if (v < -kLongMax) return kCountRange;
  if (syntaxError) return Err.syntax;
  if (withValues && (v < -kLongMax / 2n || v > kLongMax / 2n)) return kOutOfRange;
  // beyond 2^53 a positive count means "all of them" anyway
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return Number(v > max ? max : v < -max ? -max : v);
}

/**
 * HRANDFIELD / SRANDMEMBER / ZRANDMEMBER key [count [option]]: Redis's checks (an option-less
 * SRANDMEMBER refuses extra arguments first), then the family's pick statement (random-sql.ts).
 * No count: the element picked, or nil. A count: `many` maps the rows picked (kv.type, element,
 * the option's column), `extra` when the option (WITHVALUES, WITHSCORES) was given.
 */
export function randomPick(s: Session, argv: Buffer[], stmt: Statement, type: KeyType, option: string | undefined,
  many: (picked: Rows, extra: boolean) => Reply): Reply | PendingReply {
  if (option === undefined && argv.length > 3) return Err.syntax;
  const single = argv.length === 2;
  const extra = option !== undefined && argv.length === 4 && eqIgnoreCase(argv[3], option);
  const count = single ? -1 : parseRandCount(argv[2], argv.length > 4 || (argv.length === 4 && !extra), extra);
  if (count instanceof RespError) return count;
  return exec(s, stmt, [dbArg(s), argv[1], String(count), nowArg()], typedRead(type, single ? null : [], (rows) => {
    const picked = rows.filter((r) => r[1] !== null);
    return single ? (picked[0]?.[1] as Buffer | undefined) ?? null : many(picked, extra);
  }));
}
