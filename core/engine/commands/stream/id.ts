/**
 * Stream ids: two unsigned 64-bit numbers `ms-seq`, parsed as redis-server 7.0.15 parses them
 * (streamGenericParseIDOrReply: string2ll, else C's strtoull, so " 7", "+7", "08" and "-0" mean 7,
 * 7, 8 and 0 while "-1" is refused; at most 127 bytes).
 *
 * Postgres has no unsigned int8: each half is stored as (value - 2^63), which keeps the order of
 * the whole unsigned range in a signed int8 (`toSql` / `fromSql`). 0-0 is stored as
 * (-2^63, -2^63).
 */
import { RespError } from '../../reply';

export interface StreamId { ms: bigint; seq: bigint }

export const kU64Max = 0xffffffffffffffffn;
const kShift = 0x8000000000000000n;
export const kMinId: StreamId = { ms: 0n, seq: 0n };
export const kMaxId: StreamId = { ms: kU64Max, seq: kU64Max };

export const kInvalidId = new RespError('ERR Invalid stream ID specified as stream command argument');

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

/** string2ull: a non-negative long long, else what strtoull accepts whole (sign, leading blanks) */
function parseU64(s: string): bigint | undefined {
  if (/^(0|-?[1-9][0-9]*)$/.test(s) && s.length <= 20) {
    const v = BigInt(s);
    if (v >= -kShift && v < kShift) return v < 0n ? undefined : v;
  }
  let i = 0;
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  let neg = false;
  if (s[i] === '+' || s[i] === '-') { neg = s[i] === '-'; i++; }
  const digits = s.slice(i);
  if (!/^[0-9]+$/.test(digits)) return undefined;
  const v = BigInt(digits);
  if (v > kU64Max) return undefined; // ERANGE
  return neg ? (kU64Max + 1n - v) & kU64Max : v;
}

/**
 * An id argument: `-` and `+` unless strict, `ms` (seq = missingSeq), `ms-seq`, and with
 * `autoSeq` XADD's `ms-*` (seq undefined). undefined: "Invalid stream ID".
 */
export function parseId(arg: Buffer, missingSeq: bigint, strict: boolean, autoSeq = false):
  { ms: bigint; seq: bigint | undefined } | undefined {
  if (arg.length > 127) return undefined;
  let s = arg.toString('latin1');
  const nul = s.indexOf('\0');
  if (nul >= 0) s = s.slice(0, nul); // a C string ends there
  if (s === '-' || s === '+') {
    if (strict) return undefined;
    return s === '-' ? { ...kMinId } : { ...kMaxId };
  }
  const dash = s.indexOf('-');
  const ms = parseU64(dash < 0 ? s : s.slice(0, dash));
  if (ms === undefined) return undefined;
  if (dash < 0) return { ms, seq: missingSeq };
  const rest = s.slice(dash + 1);
  if (autoSeq && rest === '*') return { ms, seq: undefined };
  const seq = parseU64(rest);
  return seq === undefined ? undefined : { ms, seq };
}

/** A complete id (no `ms-*`), or the error reply. */
export function parseFullId(arg: Buffer, missingSeq: bigint, strict: boolean): StreamId | RespError {
  const id = parseId(arg, missingSeq, strict);
  return id === undefined || id.seq === undefined ? kInvalidId : id as StreamId;
}

export function compareIds(a: StreamId, b: StreamId): number {
  if (a.ms !== b.ms) return a.ms < b.ms ? -1 : 1;
  return a.seq === b.seq ? 0 : a.seq < b.seq ? -1 : 1;
}

/** the next id, undefined after the last one (streamIncrID's C_ERR) */
export function nextId(id: StreamId): StreamId | undefined {
  if (id.seq < kU64Max) return { ms: id.ms, seq: id.seq + 1n };
  return id.ms < kU64Max ? { ms: id.ms + 1n, seq: 0n } : undefined;
}

/** the previous id, undefined before 0-0 */
export function prevId(id: StreamId): StreamId | undefined {
  if (id.seq > 0n) return { ms: id.ms, seq: id.seq - 1n };
  return id.ms > 0n ? { ms: id.ms - 1n, seq: kU64Max } : undefined;
}

/** one half as its stored int8 */
export const toSql = (v: bigint): bigint => v - kShift;
/** a stored int8 (the driver's decimal string) back to its unsigned value */
export const fromSql = (v: unknown): bigint => BigInt(v as string) + kShift;

export const formatId = (id: StreamId): string => `${id.ms}-${id.seq}`;
/** the reply text of a stored (ms, seq) pair */
export const sqlIdText = (ms: unknown, seq: unknown): string => `${fromSql(ms)}-${fromSql(seq)}`;
