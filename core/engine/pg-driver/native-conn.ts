/** NativePgConnection: one libpq connection in pipeline mode through our context-aware addon
 * (core/native/pg.c), loadable in every worker thread, unlike pg-native.
 *
 * Batching model ("lane"): send any number of statements, then sync(); each statement's callback
 * (or promise) settles in send order. A sync group is one implicit transaction: if a statement
 * fails, the rest of its group is skipped (PgAbortedError) and the next group runs normally.
 *
 *   send(a) send(b) sync() send(c) sync()      ──▶ Parse/Bind/Execute… Sync …  (one write)
 *   ring: [prepare a][a][b][sync][c][sync]     ◀── onresults(buffer, layout): one JS call per
 *                                                  socket read, each entry shifted in order
 *
 * Statements are prepared on first use (one named statement per distinct SQL text) in the same
 * pipeline, so a batch costs one round trip even the first time. Parameters: Buffer (binary),
 * string/number/bigint/boolean (text, the server parses them for the parameter's type), null, an
 * array of Buffers / strings / integers (binary bytea[] / text[] / int8[], for
 * `unnest($1::bytea[])`), or an Int16Array / Int32Array / BigInt64Array (binary int2[] / int4[] /
 * int8[]). Rows come back in binary format as a PgResult view.
 */
import * as dns from 'node:dns';
import * as net from 'node:net';
import { loadPgAddon, NativePgConn } from './addon';
import { isConnectionSqlState, PgAbortedError, PgConnectionError, PgServerError } from './errors';
import { ParamEncoder, PgParam } from './params';
import { PgResult } from './result';

export type { PgArrayParam, PgParam } from './params';
export type QueryCallback = (err: Error | null, result: PgResult | null) => void;

export interface QueryOptions {
  /** false: send as an unnamed statement (Parse each time) instead of preparing it once. */
  prepare?: boolean;
  /** Parameter type OIDs for the prepare, when the SQL does not cast its parameters. */
  types?: number[];
}

export interface ConnectOptions {
  /** Give up connecting after this long (libpq's connect_timeout applies to blocking connects
   * only). */
  connectTimeoutMs?: number;
  /** More libpq keywords, overriding the URL's: e.g. { options: '-c search_path=postresp',
   * application_name: 'postresp' }. */
  libpq?: Record<string, string>;
}

const kDefaults: Required<ConnectOptions> = { connectTimeoutMs: 10_000, libpq: {} };

const K_QUERY = 0;
const K_PREPARE = 1;
const K_SYNC = 2;
// Kinds in the native layout (core/native/pg.c)
const R_OK = 0;
const R_ERROR = 1;
const R_ABORTED = 2;
const R_SYNC = 3;

interface Statement {
  readonly id: number;
  readonly sql: string;
  /** Why its Parse failed or was skipped; the statement is then dropped from the cache. */
  prepareError: Error | null;
}

export class NativePgConnection {
  /** Called once when the connection ends: with the error when it was lost, without when
   * close() was called. Pending commands have already failed by then. */
  onClose?: (err?: Error) => void;
  /** LISTEN notifications, in arrival order (core/bus/pg-link.ts). Set it before LISTEN; call
   * setListening(true) so an idle listening connection keeps the process alive. */
  onNotification?: (channel: string, payload: string, pid: number) => void;

  private closedError: PgConnectionError | null = null;
  private readonly statements = new Map<string, Statement>();
  private readonly params = new ParamEncoder();
  private nextStatementId = 1;
  private groupError: Error | null = null;
  private unsynced = false;
  private autoSyncQueued = false;
  // Pending commands in send order: a ring of parallel arrays (a 10k-deep pipeline would make
  // Array#shift quadratic).
  private cbs: (QueryCallback | null)[] = new Array(64).fill(null);
  private stmts: (Statement | null)[] = new Array(64).fill(null);
  private kinds = new Uint8Array(64);
  private head = 0;
  private count = 0;

  private constructor(private readonly native: NativePgConn) {
    native.onresults = (data, layout, start, count) => this.onResults(data, layout, start, count);
    native.onnotify = (flat) => {
      for (let i = 0; i + 2 < flat.length; i += 3) this.onNotification?.(flat[i + 1] as string, flat[i + 2] as string, flat[i] as number);
    };
    native.onclose = (message) => this.lost(`connection to Postgres lost: ${message.replace(/\s*\n\s*/g, ' ')}`);
  }

  /** Opens a connection. `url`: a postgres:// URL or a libpq key=value string. */
  static connect(url: string, options: ConnectOptions = {}): Promise<NativePgConnection> {
    const opts = { ...kDefaults, ...options };
    if (!(opts.connectTimeoutMs > 0)) return Promise.reject(new TypeError('connectTimeoutMs must be a positive number'));
    let PgConn: ReturnType<typeof loadPgAddon>['PgConn'];
    try {
      PgConn = loadPgAddon().PgConn; // POSTRESP_ERR_NATIVE naming libpq-dev and `npm rebuild`
    } catch (err) {
      return Promise.reject(err);
    }
    return hostAddress(url).then(
      (hostaddr) =>
        new Promise<NativePgConnection>((resolve, reject) => {
          // gssencmode first so the URL (then PGGSSENCMODE) can still ask for it: libpq's probe
          // for Kerberos credentials costs every connect and leaks per thread when a worker
          // unloads the addon (valgrind: 150 B from gss_acquire_cred).
          const keys = process.env.PGGSSENCMODE ? ['dbname'] : ['gssencmode', 'dbname'];
          const values = process.env.PGGSSENCMODE ? [url] : ['disable', url];
          if (hostaddr) keys.push('hostaddr'), values.push(hostaddr);
          for (const [k, v] of Object.entries(opts.libpq)) keys.push(k), values.push(v);
          let native: NativePgConn;
          try {
            native = new PgConn(keys, values);
          } catch (err) {
            reject(new PgConnectionError(`could not connect to Postgres: ${(err as Error).message}`));
            return;
          }
          const timer = setTimeout(() => {
            native.close();
            reject(new PgConnectionError(`could not connect to Postgres within ${opts.connectTimeoutMs} ms`));
          }, opts.connectTimeoutMs);
          native.onconnect = (message) => {
            clearTimeout(timer);
            native.onconnect = undefined;
            if (message !== null) reject(new PgConnectionError(`could not connect to Postgres: ${message}`));
            else resolve(new NativePgConnection(native));
          };
        }),
    );
  }

  /** True once closed or lost; every later command fails with PgConnectionError. */
  get closed(): boolean {
    return this.closedError !== null;
  }

  /** Commands (statements, prepares, syncs) sent and not answered yet. */
  get pending(): number {
    return this.count;
  }

  get backendPid(): number {
    return this.native.backendPid();
  }

  get serverVersion(): number {
    return this.native.serverVersion();
  }

  /** true: held and keeping the event loop alive while idle (a LISTENing connection). */
  setListening(on: boolean): void {
    if (!this.closedError) this.native.setListening(on);
  }

  /** Queues one statement; `cb` gets its result in send order. The fastest form: no promise. */
  send(sql: string, params: readonly PgParam[] | undefined, cb: QueryCallback, options?: QueryOptions): void {
    if (this.closedError) return fail(cb, this.closedError);
    const enc = this.params;
    try {
      const n = enc.encode(params);
      const refs = enc.refs.length ? enc.refs : undefined;
      if (options?.prepare === false) {
        this.native.send(sql, enc.buffer, n, refs);
        this.push(K_QUERY, cb, null);
      } else {
        const st = this.statement(sql, options?.types, null);
        this.native.sendPrepared(st.id, enc.buffer, n, refs);
        this.push(K_QUERY, cb, st);
      }
    } catch (err) {
      return this.sendFailed(err as Error, cb);
    } finally {
      enc.release();
    }
    this.markUnsynced();
  }

  /** Promise form of send(). */
  query(sql: string, params?: readonly PgParam[], options?: QueryOptions): Promise<PgResult> {
    return new Promise((resolve, reject) => {
      this.send(sql, params, (err, res) => (err ? reject(err) : resolve(res as PgResult)), options);
    });
  }

  /** Prepares ahead of use (otherwise the first send() does it); resolves when the server
   * accepted it. */
  prepare(sql: string, types?: number[]): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closedError) return reject(this.closedError);
      if (this.statements.has(sql)) return resolve();
      try {
        this.statement(sql, types, (err) => (err ? reject(err) : resolve()));
      } catch (err) {
        return this.sendFailed(err as Error, (e) => reject(e));
      }
      this.markUnsynced();
    });
  }

  /** Ends the current sync group (its statements commit together unless one fails) and
   * flushes everything queued to the socket. Without it, the group ends when the current
   * synchronous run of JS does (a microtask syncs), so nothing is ever left unsent. */
  sync(): void;
  /** With `cb`: called once the server answered the Sync, i.e. after the group's implicit
   * transaction committed (a statement's own result can arrive before its commit), or with the
   * error that ended the connection. */
  sync(cb: (err: Error | null) => void): void;
  sync(cb?: (err: Error | null) => void): void {
    this.unsynced = false;
    const done: QueryCallback | null = cb ? (err) => cb(err) : null;
    if (this.closedError) {
      if (done) fail(done, this.closedError);
      return;
    }
    try {
      this.native.sync();
    } catch (err) {
      return this.sendFailed(err as Error, done);
    }
    this.push(K_SYNC, done, null);
  }

  /** Closes now; pending commands fail with PgConnectionError('connection closed by client'). */
  close(): Promise<void> {
    if (!this.closedError) {
      this.native.close();
      this.end(new PgConnectionError('connection closed by client'), undefined);
    }
    return Promise.resolve();
  }

  // ---------------------------------------------------------------- internals

  private statement(sql: string, types: number[] | undefined, cb: QueryCallback | null): Statement {
    let st = this.statements.get(sql);
    if (st) return st;
    st = { id: this.nextStatementId++, sql, prepareError: null };
    this.native.prepare(st.id, sql, types);
    this.statements.set(sql, st);
    this.push(K_PREPARE, cb, st);
    return st;
  }

  private markUnsynced(): void {
    this.unsynced = true;
    if (this.autoSyncQueued) return;
    this.autoSyncQueued = true;
    queueMicrotask(() => {
      this.autoSyncQueued = false;
      if (this.unsynced) this.sync();
    });
  }

  private push(kind: number, cb: QueryCallback | null, st: Statement | null): void {
    if (this.count === this.kinds.length) this.grow();
    const i = (this.head + this.count) & (this.kinds.length - 1);
    this.kinds[i] = kind;
    this.cbs[i] = cb;
    this.stmts[i] = st;
    this.count++;
  }

  private grow(): void {
    const n = this.kinds.length;
    const cbs = new Array<QueryCallback | null>(n * 2).fill(null);
    const stmts = new Array<Statement | null>(n * 2).fill(null);
    const kinds = new Uint8Array(n * 2);
    for (let k = 0; k < n; k++) {
      const i = (this.head + k) & (n - 1);
      cbs[k] = this.cbs[i];
      stmts[k] = this.stmts[i];
      kinds[k] = this.kinds[i];
    }
    this.cbs = cbs;
    this.stmts = stmts;
    this.kinds = kinds;
    this.head = 0;
  }

  /** Dispatches one delivery (layout described in core/native/pg.c) to the pending commands. */
  private onResults(data: Buffer, layout: Int32Array, start: number, count: number): void {
    const mask = this.kinds.length - 1;
    const end = start + count;
    let thrown: unknown = null;
    let i = start;
    while (i < end) {
      if (this.count === 0) return this.desync();
      const h = this.head;
      const kind = this.kinds[h];
      const cb = this.cbs[h];
      const st = this.stmts[h];
      this.cbs[h] = null;
      this.stmts[h] = null;
      this.head = (h + 1) & mask;
      this.count--;
      let err: Error | null = null;
      let res: PgResult | null = null;
      const r = layout[i];
      if (r === R_OK) {
        const rows = layout[i + 1];
        const cols = layout[i + 2];
        if (kind === K_QUERY) res = new PgResult(data, layout, i + 4, rows, cols, layout[i + 3]);
        i += 4 + cols + 2 * rows * cols;
      } else if (r === R_ERROR) {
        err = serverError(data, layout, i);
        i += 9;
        if (!this.groupError) this.groupError = err;
        // A statement whose Parse failed earlier answers "prepared statement does not exist".
        if (kind === K_QUERY && st?.prepareError && (err as PgServerError).code === '26000') err = st.prepareError;
      } else if (r === R_ABORTED) {
        i += 1;
        // Skipped because the session died (57P01…): libpq makes these locally, report the cause.
        err = this.groupError instanceof PgConnectionError ? this.groupError
          : (kind === K_QUERY && st?.prepareError) || new PgAbortedError(this.groupError ?? undefined);
      } else if (r === R_SYNC) {
        i += 1;
        if (kind !== K_SYNC) return this.desync();
      } else {
        return this.desync();
      }
      if (kind === K_SYNC) {
        // Normally R_SYNC; an error when the link broke before the server answered the Sync.
        this.groupError = null;
        if (cb) {
          try {
            cb(err, null);
          } catch (e) {
            thrown ??= e;
          }
        }
        continue;
      }
      if (kind === K_PREPARE && err && st) {
        st.prepareError = err;
        if (this.statements.get(st.sql) === st) this.statements.delete(st.sql);
      }
      if (cb) {
        try {
          cb(err, res);
        } catch (e) {
          thrown ??= e;
        }
      }
    }
    // A throwing callback must not starve the ones after it; report the first afterwards.
    if (thrown) throw thrown;
  }

  /** Results and pending commands disagree: a bug, never silently misattribute rows. */
  private desync(): void {
    this.native.close();
    this.lost('driver protocol desynchronised (results do not match pending commands)');
  }

  private sendFailed(err: Error & { code?: string }, cb: QueryCallback | null): void {
    if (err.code === 'POSTRESP_ERR_PG_CONNECTION') {
      this.lost(`connection to Postgres lost: ${err.message}`);
      if (cb) fail(cb, this.closedError as Error);
    } else if (cb) {
      fail(cb, err);
    } else {
      throw err;
    }
  }

  private lost(message: string): void {
    if (this.closedError) return;
    const err = new PgConnectionError(message);
    this.end(err, err);
  }

  private end(err: PgConnectionError, reported: Error | undefined): void {
    this.closedError = err;
    this.statements.clear();
    let thrown: unknown = null;
    while (this.count > 0) {
      const h = this.head;
      const cb = this.cbs[h];
      this.cbs[h] = null;
      this.stmts[h] = null;
      this.head = (h + 1) & (this.kinds.length - 1);
      this.count--;
      if (cb) {
        try {
          cb(err, null);
        } catch (e) {
          thrown ??= e;
        }
      }
    }
    try {
      this.onClose?.(reported);
    } catch (e) {
      thrown ??= e;
    }
    if (thrown) throw thrown;
  }
}

function fail(cb: QueryCallback, err: Error): void {
  queueMicrotask(() => cb(err, null));
}

function field(data: Buffer, layout: Int32Array, j: number): string {
  const len = layout[j + 1];
  return len > 0 ? data.toString('utf8', layout[j], layout[j] + len) : '';
}

function serverError(data: Buffer, layout: Int32Array, i: number): Error {
  const sqlState = field(data, layout, i + 1);
  const message = field(data, layout, i + 3);
  if (isConnectionSqlState(sqlState)) return new PgConnectionError(message, sqlState || undefined);
  return new PgServerError(sqlState, message, field(data, layout, i + 5) || undefined, field(data, layout, i + 7) || undefined);
}

/** libpq resolves host names with a blocking getaddrinfo inside PQconnectPoll, which would stall
 * the event loop; resolve a single DNS name here (thread pool) and pass it as hostaddr. */
async function hostAddress(url: string): Promise<string | null> {
  if (!/^postgres(ql)?:\/\//i.test(url)) return null;
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null;
  }
  if (!host || host === 'localhost' || /[%,]/.test(host) || host.startsWith('[') || net.isIP(host)) return null;
  try {
    return (await dns.promises.lookup(host)).address;
  } catch {
    return null; // let libpq report the unknown host in its own words
  }
}
