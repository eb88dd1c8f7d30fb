/** The family's error replies, in Redis's words (hyperloglog.c), and the status codes of ./functions.ts. */
import { RespError } from '../../reply';
import { Err } from '../../resp-errors';

export const kNotHll = new RespError('WRONGTYPE Key is not a valid HyperLogLog string value.');
export const kCorrupted = new RespError('INVALIDOBJ Corrupted HLL object detected');

/** status 2 WRONGTYPE, 6 not a HyperLogLog string, 7 corrupted */
export const kHllErrors: Record<number, RespError> = { 2: Err.wrongType, 6: kNotHll, 7: kCorrupted };
