/**
 * What the key and string command files share: Redis's type names, their error texts, and the
 * database-index rule of MOVE/COPY. Statement arguments and reply mappers: ../exec.ts.
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { parseI64 } from '../args';

/** kv.type → the name TYPE answers */
export const kTypeNames: readonly string[] = ['string', 'hash', 'list', 'set', 'zset', 'stream'];

export const kNoSuchKey = new RespError('ERR no such key');
export const kSameObject = new RespError('ERR source and destination objects are the same');
export const kTooLong = new RespError('ERR string exceeds maximum allowed size (proto-max-bulk-len)');

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
