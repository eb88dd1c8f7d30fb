/**
 * Errors that break infrastructure (bad configuration, Postgres gone, addon missing) are thrown:
 * subclasses of PostrespError with a stable code and a message telling the operator what to do.
 * What a client may see is a RespError value (resp-errors.ts), never one of these.
 */
export class PostrespError extends Error {
  constructor(readonly code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PostrespError';
  }
}

export const kErrConfig = 'POSTRESP_ERR_CONFIG';
export const kErrNative = 'POSTRESP_ERR_NATIVE';
export const kErrListen = 'POSTRESP_ERR_LISTEN';
