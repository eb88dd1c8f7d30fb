/**
 * The primary thread's own Postgres connection, through pg-native (libpq). pg-native loads in
 * the primary only: its libpq binding is not context-aware and fails in a second thread
 * ("Module did not self-register", node-libpq #79), so workers use their own lanes instead.
 * Serves INFO keyspace counts, and later the expiry sweeper.
 */
// eslint-disable-next-line @typescript-eslint/no-var-requires
const PgNative = require('pg-native') as new (opts?: { arrayMode?: boolean }) => NativeClient;

interface NativeClient {
  on(event: 'error', cb: (err: Error) => void): void;
  connect(url: string, cb: (err?: Error) => void): void;
  query(text: string, values: unknown[], cb: (err: Error | null, rows: unknown[][]) => void): void;
  end(cb?: () => void): void;
}

export class PrimaryPg {
  private client: NativeClient | undefined;
  private connecting: Promise<NativeClient> | undefined;

  constructor(private readonly url: string, private readonly startupOptions: string) {}

  private connect(): Promise<NativeClient> {
    if (this.client) return Promise.resolve(this.client);
    if (this.connecting) return this.connecting;
    const c = new PgNative({ arrayMode: true });
    // pg-native emits 'error' when the server goes away between queries: unhandled, that would
    // end the process; the next query reconnects instead
    c.on('error', () => {
      if (this.client === c) this.client = undefined;
    });
    const sep = this.url.includes('?') ? '&' : '?';
    const url = `${this.url}${sep}options=${encodeURIComponent(this.startupOptions)}`;
    this.connecting = new Promise<NativeClient>((resolve, reject) => {
      c.connect(url, (err) => {
        this.connecting = undefined;
        if (err) return reject(err);
        this.client = c;
        resolve(c);
      });
    });
    return this.connecting;
  }

  async query(text: string, values: unknown[] = []): Promise<unknown[][]> {
    const c = await this.connect();
    return new Promise((resolve, reject) => c.query(text, values, (err, rows) => {
      if (err) {
        // a broken connection is replaced on the next query
        this.client = undefined;
        c.end();
        return reject(err);
      }
      resolve(rows);
    }));
  }

  close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    return new Promise((r) => (c ? c.end(() => r()) : r()));
  }
}
