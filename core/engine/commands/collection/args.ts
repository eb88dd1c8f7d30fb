/** Argument checks collection commands share, with Redis's texts. */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../args';

const kLongMax = 9223372036854775807n;
const kMustBePositive = new RespError('ERR value is out of range, must be positive');

/**
 * getRangeLongFromObjectOrReply: with a message, that message for both a non-integer and a value
 * out of [min, max]; without, Redis's two default texts.
 */
export function rangeLong(b: Buffer, min: bigint, max: bigint, msg?: RespError): bigint | RespError {
  const v = parseI64(b);
  if (v === undefined) return msg ?? Err.notInteger;
  if (v < min || v > max) return msg ?? new RespError(`ERR value is out of range, value must between ${min} and ${max}`);
  return v;
}

/** getPositiveLongFromObjectOrReply: 0 … LONG_MAX */
export function positiveLong(b: Buffer, msg: RespError = kMustBePositive): bigint | RespError {
  return rangeLong(b, 0n, kLongMax, msg);
}

export { kLongMax };

/**
 * numkeys of SINTERCARD / LMPOP / ZMPOP / ZUNION…: 1 … LONG_MAX and no more than the arguments
 * after it; returns the count.
 */
export function parseNumKeys(argv: Buffer[], at: number, msg = 'numkeys should be greater than 0'): number | RespError {
  const n = rangeLong(argv[at], 1n, kLongMax, new RespError(`ERR ${msg}`));
  if (n instanceof RespError) return n;
  if (n > BigInt(argv.length - at - 1)) return new RespError('ERR Number of keys can\'t be greater than number of args');
  return Number(n);
}

const kMpopNumKeys = new RespError('ERR numkeys should be greater than 0');
const kMpopCount = new RespError('ERR count should be greater than 0');

/**
 * LMPOP / ZMPOP (and their blocking forms): `numkeys key [key …] <where> [COUNT count]` from
 * argv[from]; `where` maps the direction word to true / false, or undefined when it is neither.
 * Redis's order of checks: numkeys, then "syntax error" for too few arguments, an unknown
 * direction or anything but one COUNT, then the count's range.
 */
export function parseMpop(argv: Buffer[], from: number, where: (arg: Buffer) => boolean | undefined):
  { keys: Buffer[]; where: boolean; count: bigint } | RespError {
  const n = rangeLong(argv[from], 1n, kLongMax, kMpopNumKeys);
  if (n instanceof RespError) return n;
  const at = from + 1 + Number(n);
  if (n > BigInt(argv.length - from - 2) || at >= argv.length) return Err.syntax;
  const dir = where(argv[at]);
  if (dir === undefined) return Err.syntax;
  let count: bigint | undefined;
  for (let i = at + 1; i < argv.length; i++) {
    if (count !== undefined || !eqIgnoreCase(argv[i], 'count') || i + 1 >= argv.length) return Err.syntax;
    const c = rangeLong(argv[++i], 1n, kLongMax, kMpopCount);
    if (c instanceof RespError) return c;
    count = c;
  }
  return { keys: argv.slice(from + 1, at), where: dir, count: count ?? 1n };
}

/** Removes repeated buffers, keeping the first occurrence (SADD a a: one member). */
export function distinct(items: Buffer[]): Buffer[] {
  if (items.length < 2) return items;
  const seen = new Set<string>();
  const out: Buffer[] = [];
  for (const b of items) {
    const k = b.toString('latin1');
    if (!seen.has(k)) { seen.add(k); out.push(b); }
  }
  return out;
}
