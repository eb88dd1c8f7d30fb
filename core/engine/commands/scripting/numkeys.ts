/**
 * EVAL/FCALL's `numkeys key … arg …`, with Redis's checks and texts (evalGenericCommand,
 * fcallCommandGeneric): argv[2] is the count, KEYS follow, ARGV after them.
 */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';
import { parseI64 } from '../args';

const kTooMany = new RespError('ERR Number of keys can\'t be greater than number of args');
const kNegative = new RespError('ERR Number of keys can\'t be negative');
const kBadFcall = new RespError('ERR Bad number of keys provided');

export interface KeysAndArgs { keys: Buffer[]; args: Buffer[] }

/** fcall: FCALL's text for a count that is not an integer */
export function splitKeys(argv: Buffer[], fcall = false): KeysAndArgs | RespError {
  const n = parseI64(argv[2]);
  if (n === undefined) return fcall ? kBadFcall : Err.notInteger;
  if (n > BigInt(argv.length - 3)) return kTooMany;
  if (n < 0n) return kNegative;
  const k = 3 + Number(n);
  return { keys: argv.slice(3, k), args: argv.slice(k) };
}
