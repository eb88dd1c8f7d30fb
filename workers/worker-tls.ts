/**
 * One worker's TLS context. Built at start when tls-port is set, and again on the first TLS
 * connection after CONFIG SET changed a tls-* option: one CONFIG SET naming cert and key arrives
 * as one message per option, and building between the two would pair the new certificate with
 * the old key. The CONFIG SET that a worker answered was already tried on a scratch copy
 * (core/engine/commands/server/config.ts), so a rebuild that fails here means a file changed on
 * disk since; the worker keeps its last good context and logs why.
 */
import type { Config } from '../core/config/config';
import { buildTlsContext, type TlsServerContext } from '../core/tls/secure-context';

export class WorkerTls {
  private current: TlsServerContext | undefined;
  private stale: boolean;

  constructor(private readonly config: Config, private readonly log: (line: string) => void, private readonly ticketKeys?: Uint8Array) {
    this.stale = config.int('tls-port') !== 0;
  }

  changed(): void {
    this.stale = true;
  }

  /** The context for a new TLS connection; undefined when none could ever be built. */
  context(): TlsServerContext | undefined {
    if (this.stale) {
      this.stale = false;
      try {
        this.current = buildTlsContext(this.config, this.ticketKeys);
      } catch (e) {
        this.log(`TLS configuration not applied, keeping the previous one: ${(e as Error).message}`);
      }
    }
    return this.current;
  }
}
