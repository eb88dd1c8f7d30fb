/**
 * A lane's Postgres connection through its life: connect, lose it (Postgres restarted, killed,
 * network), reconnect with backoff, close. While it is down with no attempt under way the lane
 * answers at once instead of queueing (never hang a client on a dead database).
 *
 *   connecting ──ok──▶ up ──lost──▶ down ──backoff 50 ms … 2 s──▶ connecting
 *        └──────failed─────────────────▶ down
 */
import { NativePgConnection } from '../../core/engine/pg-driver/native-conn';

const kBackoffMs = [50, 100, 200, 500, 1000, 2000];

export interface ConnectionOptions {
  url: string;
  /** libpq `options`: search_path, synchronous_commit, jit */
  startupOptions: string;
  log: (line: string) => void;
}

export interface ConnectionEvents {
  /** connected (again): what queued meanwhile may go */
  up(): void;
  /** a connection attempt failed, or the connection was lost (its statements already failed) */
  down(message: string, lost: boolean): void;
  /** a reconnect attempt starts */
  retrying(): void;
}

export class LaneConnection {
  conn: NativePgConnection | undefined;
  private connecting: Promise<void> | undefined;
  private lastError: string | undefined;
  private failures = 0;
  private closed = false;

  constructor(private readonly opts: ConnectionOptions, private readonly events: ConnectionEvents) {}

  /** Postgres is known to be down and no attempt is under way: the message to answer with */
  get downMessage(): string | undefined {
    return this.conn === undefined && this.connecting === undefined ? this.lastError : undefined;
  }

  connect(): Promise<void> {
    if (this.connecting) return this.connecting;
    this.connecting = NativePgConnection.connect(this.opts.url, {
      libpq: { options: this.opts.startupOptions, application_name: 'postresp-lane' },
    }).then((conn) => {
      conn.onClose = (e) => this.lost(conn, e);
      this.conn = conn;
      this.lastError = undefined;
      this.failures = 0;
      this.connecting = undefined;
      if (this.closed) { conn.close(); return; }
      this.events.up();
    }, (e: Error) => {
      this.connecting = undefined;
      this.lastError = e.message;
      this.events.down(e.message, false);
      this.retry();
      throw e;
    });
    return this.connecting;
  }

  /** The connection ended: its pending statements have already failed (and answered their ops). */
  private lost(conn: NativePgConnection, e: Error | undefined): void {
    // close() ends the connection on purpose: no "lost" log, no reconnect
    if (this.conn !== conn || this.closed || e === undefined) return;
    this.conn = undefined;
    this.lastError = e.message;
    this.opts.log(`Postgres connection lost: ${e.message}; reconnecting`);
    this.events.down(e.message, true);
    this.retry();
  }

  private retry(): void {
    if (this.closed) return;
    const delay = kBackoffMs[Math.min(this.failures++, kBackoffMs.length - 1)];
    setTimeout(() => {
      if (this.closed || this.conn || this.connecting) return;
      this.events.retrying();
      this.connect().catch(() => undefined);
    }, delay).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.conn?.close();
    this.conn = undefined;
  }
}
