/** Errors of the native Postgres driver. Server errors carry the SQLSTATE as `code`; the rest
 * carry a stable POSTRESP_ERR_* code and a message that says what to do. */

/** Postgres rejected a statement: `code` is the SQLSTATE (e.g. '23505'), message the server's. */
export class PgServerError extends Error {
  override name = 'PgServerError';
  constructor(
    readonly code: string,
    message: string,
    readonly detail?: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** The connection is gone (server restarted, backend terminated, network, closed by us).
 * Every command pending on it fails with this; open a new connection. */
export class PgConnectionError extends Error {
  override name = 'PgConnectionError';
  readonly code = 'POSTRESP_ERR_PG_CONNECTION';
  /** SQLSTATE when the server said why (57P01 terminated by administrator, 57P03 starting up). */
  readonly sqlState?: string;
  constructor(message: string, sqlState?: string) {
    super(message);
    if (sqlState) this.sqlState = sqlState;
  }
}

/** Skipped, not executed: an earlier statement of the same sync group failed (`cause`). */
export class PgAbortedError extends Error {
  override name = 'PgAbortedError';
  readonly code = 'POSTRESP_ERR_PG_ABORTED';
  constructor(cause: Error | undefined) {
    super(`statement not executed: an earlier statement in its sync group failed${cause ? ` (${cause.message})` : ''}`, { cause });
  }
}

/** A parameter the driver cannot send (wrong type, NUL in text…); only that statement fails. */
export class PgParamError extends TypeError {
  override name = 'PgParamError';
  readonly code = 'POSTRESP_ERR_PG_PARAM';
}

/** SQLSTATEs that mean the session itself is over: class 08 (connection exception), 57P01–57P03
 * (terminated by administrator, crash shutdown, cannot connect now). Empty: libpq's own error. */
export function isConnectionSqlState(sqlState: string): boolean {
  return sqlState === '' || sqlState.startsWith('08') || sqlState === '57P01' || sqlState === '57P02' || sqlState === '57P03';
}
