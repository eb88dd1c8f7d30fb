/**
 * Score and lex bounds with Redis's parsing (zslParseRange, zslParseLexRange), turned into the
 * inclusive-lower / exclusive-upper form the statements use:
 *   score  (x → the next double up (or down, for a max): every comparison is ≥ / ≤
 *   lex    lower bound inclusive, upper bound exclusive (null = none); "(x" as a lower bound and
 *          "[x" as an upper one become x followed by a 0 byte, the next string after x
 * Also the score texts sent to Postgres and the double-float array literal.
 */
import { RespError } from '../../reply';
import { cStrtod } from '../collection/strtod';

export const kNotFloatRange = new RespError('ERR min or max is not a float');
export const kNotLexRange = new RespError('ERR min or max not valid string range item');

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** nextafter(x, +inf) */
export function nextUp(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return Number.MIN_VALUE;
  f64[0] = x;
  u64[0] += x > 0 ? 1n : -1n;
  return f64[0];
}

export const nextDown = (x: number): number => -nextUp(-x);

export interface ScoreRange { lo: number; hi: number }

/** min/max as ZRANGEBYSCORE reads them; an exclusive bound becomes the next double inward. */
export function parseScoreRange(min: Buffer, max: Buffer): ScoreRange | RespError {
  const a = scoreBound(min);
  const b = scoreBound(max);
  if (a === undefined || b === undefined) return kNotFloatRange;
  const lo = a.ex ? (a.v === Infinity ? Infinity : nextUp(a.v)) : a.v;
  const hi = b.ex ? (b.v === -Infinity ? -Infinity : nextDown(b.v)) : b.v;
  // "(+inf" as min or "(-inf" as max selects nothing, not the infinite scores
  if ((a.ex && a.v === Infinity) || (b.ex && b.v === -Infinity)) return { lo: Infinity, hi: -Infinity };
  return { lo, hi };
}

function scoreBound(b: Buffer): { v: number; ex: boolean } | undefined {
  const ex = b[0] === 40; // (
  const v = cStrtod(b, ex ? 1 : 0);
  return v === undefined ? undefined : { v, ex };
}

export interface LexRange { lo: Buffer; hi: Buffer | null }

const kZero = Buffer.from([0]);
const kEmpty = Buffer.alloc(0);

export function parseLexRange(min: Buffer, max: Buffer): LexRange | RespError {
  const a = lexBound(min);
  const b = lexBound(max);
  if (a === undefined || b === undefined) return kNotLexRange;
  // "+" as min or "-" as max: nothing is in range (member < '' is never true)
  if (a === '+' || b === '-') return { lo: kEmpty, hi: kEmpty };
  const lo = a === '-' ? kEmpty : a.ex ? Buffer.concat([a.v, kZero]) : a.v;
  const hi = b === '+' ? null : b.ex ? b.v : Buffer.concat([b.v, kZero]);
  return { lo, hi };
}

function lexBound(b: Buffer): '-' | '+' | { v: Buffer; ex: boolean } | undefined {
  if (b.length === 0) return undefined;
  const c = b[0];
  if (c === 43 || c === 45) { // + -
    if (b.length > 1 && b[1] !== 0) return undefined; // Redis reads a C string: a NUL ends it
    return c === 43 ? '+' : '-';
  }
  if (c === 40 || c === 91) return { v: b.subarray(1), ex: c === 40 }; // ( [
  return undefined;
}

/** A double as Postgres float8 text: exact (shortest round trip), ±Infinity spelled out. */
export const f8 = (x: number): string => (Object.is(x, -0) ? '-0' : String(x));

export const f8Array = (xs: number[]): string => `{${xs.map(f8).join(',')}}`;
