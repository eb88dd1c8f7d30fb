// Keeps the embedded PostgreSQL running. When the postmaster exits without being asked (kill -9,
// the OOM killer, a PANIC), it is started again on the same data folder, port and Unix socket:
// crash recovery replays the WAL, and the lanes and the primary's connections reconnect with the
// URL they already have (lanes retry every 50 ms … 2 s; the primary on its next query). Only
// the server PostRESP started itself is supervised: one given by --pg-url, DATABASE_URL or PG*
// variables belongs to someone else and is never started or restarted.
//
//   up ──exits on its own──▶ waiting ──delay──▶ starting ──ready──▶ up   (restarts++)
//                              ▲                   │ failed (failures++)
//                              └───────────────────┘
//   stop(), from any state: cancel the delay / abort the start (SIGINT to a postmaster being
//   started, then wait for its exit) / fast shutdown of the running one ──▶ stopped
//
// Delay before an attempt: kBackoffMs[attempts in the last windowMs]. At maxAttempts in the
// window the next one waits until the oldest leaves it, so a cluster that cannot start (corrupt
// data, port taken, disk full) is tried at most maxAttempts times a minute, forever, each failure
// logged with the end of Postgres's log. Meanwhile storage commands answer
// `-ERR PostgreSQL unavailable: …` and /healthz 503, as with an external server that is down.
import { startEmbeddedPostgres, type EmbeddedOptions, type EmbeddedPostgres } from './embedded';

export interface SupervisorOptions {
  windowMs: number;
  maxAttempts: number; // restart attempts per window
  backoffMs: number[]; // delay before the n-th attempt inside the window
}

// The first attempt at once: crash recovery after kill -9 took ~0.2 s here, and every second
// waited is a second of -ERR replies. Then 1, 2, 5, 10 s: a cluster that failed to start twice
// will not be fixed by retrying faster, and each attempt costs a postmaster start.
export const kSupervisorDefaults: SupervisorOptions = { windowMs: 60_000, maxAttempts: 5, backoffMs: [0, 1000, 2000, 5000, 10000] };

export type SupervisorState = 'up' | 'waiting' | 'starting' | 'stopped';

export class SupervisedPostgres {
  /** successful restarts since start (INFO postresp_postgres_restarts, /metrics) */
  restarts = 0;
  /** restart attempts that failed */
  failures = 0;
  state: SupervisorState = 'up';
  private pg: EmbeddedPostgres;
  private attempts: number[] = []; // start times of recent attempts, oldest first
  private timer: NodeJS.Timeout | undefined;
  private abort: AbortController | undefined;
  private starting: Promise<void> | undefined;
  private readonly opts: SupervisorOptions;
  private readonly log: (line: string) => void;

  private constructor(first: EmbeddedPostgres, private readonly start: EmbeddedOptions, opts: Partial<SupervisorOptions>) {
    this.pg = first;
    this.opts = { ...kSupervisorDefaults, ...opts };
    this.log = start.log ?? (() => undefined);
  }

  /** The first start is not supervised: a cluster that cannot start at all is a startup error. */
  static async start(opts: EmbeddedOptions, supervisor: Partial<SupervisorOptions> = {}): Promise<SupervisedPostgres> {
    let self: SupervisedPostgres | undefined;
    const first = await startEmbeddedPostgres({ ...opts, onExit: (code, signal) => self?.exited(code, signal) });
    self = new SupervisedPostgres(first, { ...opts, port: first.port, existingOnly: true }, supervisor);
    return self;
  }

  /** The running postmaster, or the last one while down. Port, URLs and socket never change. */
  get current(): EmbeddedPostgres {
    return this.pg;
  }

  private exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.state === 'stopped') return;
    this.log(`embedded PostgreSQL died (code ${code}, signal ${signal}): restarting it on port ${this.pg.port} ` +
      `(crash recovery); storage commands answer -ERR PostgreSQL unavailable until it is back`);
    this.schedule();
  }

  private schedule(): void {
    const { windowMs, maxAttempts, backoffMs } = this.opts;
    const now = Date.now();
    this.attempts = this.attempts.filter((t) => now - t < windowMs);
    const n = this.attempts.length;
    let delay = backoffMs[Math.min(n, backoffMs.length - 1)] ?? 0;
    if (n >= maxAttempts) {
      delay = Math.max(delay, this.attempts[n - maxAttempts]! + windowMs - now);
      this.log(`embedded PostgreSQL: ${n} restart attempts in the last ${windowMs / 1000} s, the limit; next ` +
        `attempt in ${Math.ceil(delay / 1000)} s. Until then every storage command fails and /healthz answers 503. ` +
        `Look at ${this.pg.logDir} (corrupt data folder? disk full? port ${this.pg.port} taken?)`);
    }
    this.state = 'waiting';
    this.timer = setTimeout(() => { this.starting = this.attempt(); }, delay);
    this.timer.unref();
  }

  private async attempt(): Promise<void> {
    if (this.state !== 'waiting') return;
    this.state = 'starting';
    this.attempts.push(Date.now());
    const abort = (this.abort = new AbortController());
    const t0 = performance.now();
    try {
      const pg = await startEmbeddedPostgres({ ...this.start, signal: abort.signal,
        onExit: (code, signal) => { if (this.pg === pg) this.exited(code, signal); } });
      if (abort.signal.aborted) { await pg.stop(); return; } // ready just as stop() came
      this.pg = pg;
      this.restarts++;
      this.state = 'up';
      this.log(`embedded PostgreSQL restarted (restart ${this.restarts}, pid ${pg.pid}, port ${pg.port}) ` +
        `in ${Math.round(performance.now() - t0)} ms`);
    } catch (e) {
      if (abort.signal.aborted) return;
      this.failures++;
      this.log(`embedded PostgreSQL restart failed (${this.failures} failed so far): ${(e as Error).message}`);
      this.schedule();
    } finally {
      if (this.abort === abort) this.abort = undefined;
    }
  }

  /** Stops the server, or the restart in progress; no postmaster is left running. Idempotent. */
  async stop(): Promise<void> {
    this.state = 'stopped';
    clearTimeout(this.timer);
    this.abort?.abort();
    await this.starting;
    await this.pg.stop();
  }
}
