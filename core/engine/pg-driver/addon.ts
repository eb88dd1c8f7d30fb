/** The PgConn class of the PostRESP native addon (core/native/pg.c), loaded by core/native.ts. */
import { kErrNative, PostrespError } from '../../errors';
import { loadNative } from '../../native';

/** The C class; the delivery layout is described at the top of core/native/pg.c. */
export interface NativePgConn {
  prepare(id: number, sql: string, paramTypes?: number[]): void;
  /** params: a ParamEncoder's buffer, count and by-reference Buffers (core/engine/pg-driver/params.ts) */
  sendPrepared(id: number, params?: Buffer, count?: number, refs?: Buffer[]): void;
  send(sql: string, params?: Buffer, count?: number, refs?: Buffer[]): void;
  sync(): void;
  close(): void;
  backendPid(): number;
  serverVersion(): number;
  /** while true an idle connection stays referenced and keeps the event loop alive (LISTEN) */
  setListening(on: boolean): void;
  onconnect?: (message: string | null) => void;
  /** layout[start, start + count) describes this delivery; offsets are absolute in data */
  onresults?: (data: Buffer, layout: Int32Array, start: number, count: number) => void;
  onclose?: (message: string) => void;
  /** LISTEN notifications of one wakeup, flattened: [pid, channel, payload, pid, …] */
  onnotify?: (flat: (number | string)[]) => void;
}

export interface PgAddon {
  PgConn: new (keywords: string[], values: string[]) => NativePgConn;
  libpqVersion: number;
}

/** Throws PostrespError POSTRESP_ERR_NATIVE naming libpq-dev and `npm rebuild` when the addon is
 * missing, cannot find libpq.so, or predates pg.c. */
export function loadPgAddon(): PgAddon {
  const addon = loadNative() as unknown as Partial<PgAddon>;
  if (typeof addon.PgConn !== 'function') {
    throw new PostrespError(kErrNative, 'the PostRESP native addon has no PgConn class (built before ' +
      'core/native/pg.c was added): install libpq-dev (it provides pg_config and libpq) and run `npm rebuild`');
  }
  return addon as PgAddon;
}
