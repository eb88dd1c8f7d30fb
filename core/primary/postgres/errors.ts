// Errors that stop PostRESP from reaching or preparing PostgreSQL. They are thrown, never sent to
// clients (STYLE.md "Errors come in two kinds"): each carries a stable `code` to match on and a
// message that tells the operator what to do next.

export type PgErrorCode =
  | 'POSTRESP_ERR_PG_UNREACHABLE' // no server answering at host:port / socket
  | 'POSTRESP_ERR_PG_AUTH' // wrong password, unknown role, pg_hba refusal (28P01, 28000)
  | 'POSTRESP_ERR_PG_NO_DATABASE' // 3D000
  | 'POSTRESP_ERR_PG_PRIVILEGE' // 42501: CONNECT, CREATE or USAGE missing
  | 'POSTRESP_ERR_PG_CONNECT' // any other failure while connecting
  | 'POSTRESP_ERR_PG_QUERY' // a statement failed during setup (migration), SQLSTATE in cause
  | 'POSTRESP_ERR_PG_START' // the embedded server did not come up
  | 'POSTRESP_ERR_PG_DATADIR' // embedded data folder unusable (foreign, wrong owner, wrong major)
  | 'POSTRESP_ERR_PG_DATADIR_IN_USE' // a live postmaster already holds the data folder
  | 'POSTRESP_ERR_PG_OS_USER' // running as root and no unprivileged user could be made
  | 'POSTRESP_ERR_SCHEMA_NAME'
  | 'POSTRESP_ERR_SCHEMA_VERSION'
  | 'POSTRESP_ERR_STORAGE_MODE';

export class PostgresSetupError extends Error {
  readonly code: PgErrorCode;

  constructor(code: PgErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PostgresSetupError';
    this.code = code;
  }
}
