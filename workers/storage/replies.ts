/** Storage errors in Redis's form, plus the marker for "exists with another type". */
import { RespError } from '../../core/engine/reply';
import { Err as Base } from '../../core/engine/resp-errors';

export const wrongTypeOrNull = new RespError('WRONGTYPE (marker)');

export const Err = {
  ...Base,
  storage: (detail: string) => new RespError(`ERR PostgreSQL unavailable: ${detail.replace(/\s+/g, ' ')}`),
};
