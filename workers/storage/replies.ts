/** What a lane answers when Postgres fails, in Redis's form. */
import { RespError } from '../../core/engine/reply';
import { PgConnectionError } from '../../core/engine/pg-driver/errors';

export const storageError = (detail: string): RespError =>
  new RespError(`ERR PostgreSQL unavailable: ${detail.replace(/\s+/g, ' ')}`);

/**
 * A statement error fails its run only; a lost connection (the lane reconnects) or a server
 * shutting down is "unavailable", whatever the wording Postgres or the socket used.
 */
export function errorReply(e: Error): RespError {
  if (e instanceof PgConnectionError) return storageError(e.message);
  const code = (e as Error & { code?: string }).code;
  return new RespError(`ERR PostgreSQL error ${code}: ${e.message}`);
}

/** A run's rows could not be read (a bug, not Postgres): its ops answer this, the lane goes on. */
export const internalError = (e: unknown): RespError => new RespError(`ERR internal error: ${(e as Error).message}`);
