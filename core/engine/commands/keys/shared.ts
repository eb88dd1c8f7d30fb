/**
 * What the key and string command files share: statement arguments, Redis's type names, the
 * database-index rule of MOVE/COPY/SWAPDB, and the rows → reply mappers of the status codes the
 * server-side functions return (the families' functions.ts).
 */
import { RespError, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import type { Session } from '../../session';
import type { Rows } from '../../key-store';
import { parseI64 } from '../args';

/** kv.type → the name TYPE answers */
export const kTypeNames: readonly string[] = ['string', 'hash', 'list', 'set', 'zset'];

export const kNoSuchKey = new RespError('ERR no such key');
export const kSameObject = new RespError('ERR source and destination objects are the same');
export const kTooLong = new RespError('ERR string exceeds maximum allowed size (proto-max-bulk-len)');

/** $1 db and the last argument, now: the two every keyspace statement takes */
export const dbOf = (s: Session): string => String(s.db);
export const nowMs = (): string => String(Date.now());

/**
 * Redis's getIntFromObjectOrReply + selectDb for MOVE and COPY … DB: not an integer →
 * "not an integer", outside int → "out of range, must between", outside 0..databases-1 →
 * "DB index is out of range".
 */
export function parseDb(arg: Buffer, databases: number): number | RespError {
  const v = parseI64(arg);
  if (v === undefined) return Err.notInteger;
  if (v < -2147483648n || v > 2147483647n) return Err.notInt32;
  return v < 0n || v >= BigInt(databases) ? Err.dbIndex : Number(v);
}

/** status 0/1 of a function → the integer reply; 2 → WRONGTYPE */
export function statusInt(rows: Rows): Reply {
  const status = rows[0][0] as number;
  return status === 2 ? Err.wrongType : status;
}

/** An int8 column (text) as the integer reply: a number when exact, a bigint otherwise. */
export function int8Reply(v: unknown): number | bigint {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : BigInt(v as string);
}
