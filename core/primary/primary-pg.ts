/**
 * The primary thread's own Postgres connection (INFO keyspace counts; the expiry sweeper has
 * another), through our libpq binding (core/pg-driver), one query at a time.
 *
 * Not pg-native, although it loads on the primary: after Postgres was killed under load,
 * reconnecting crashed the whole process with SIGSEGV inside node-libpq
 * (Connection::on_io_readable → uv_poll_start on a connection libpq had closed; core dump of the
 * durability test, 1 run in ~8). Rows come back typed like the lanes' (typedRows: int4 → number,
 * int8 → decimal string).
 */
import { NativePgConnection } from '../engine/pg-driver/native-conn';
import { typedRows } from '../engine/pg-driver/typed-rows';

export class PrimaryPg {
  private conn: NativePgConnection | undefined;
  private connecting: Promise<NativePgConnection> | undefined;

  constructor(private readonly url: string, private readonly startupOptions: string) {}

  private connect(): Promise<NativePgConnection> {
    if (this.conn && !this.conn.closed) return Promise.resolve(this.conn);
    this.connecting ??= NativePgConnection.connect(this.url, {
      libpq: { options: this.startupOptions, application_name: 'postresp-primary' },
    }).then((c) => {
      this.connecting = undefined;
      this.conn = c;
      return c;
    }, (e: Error) => {
      this.connecting = undefined;
      throw e;
    });
    return this.connecting;
  }

  /** One statement; a lost connection fails it and the next query reconnects. */
  async query(text: string, values: (string | number | null)[] = []): Promise<unknown[][]> {
    const c = await this.connect();
    // unnamed: these statements run every 100 ms at most, a prepared copy per text buys nothing
    return typedRows(await c.query(text, values, { prepare: false }));
  }

  async close(): Promise<void> {
    const c = this.conn;
    this.conn = undefined;
    await c?.close();
  }
}
