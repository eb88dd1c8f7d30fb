/**
 * The keyspace as command handlers see it. Implemented per worker by workers/storage/lane-store.ts
 * over its Postgres lanes; each method resolves to the command's reply value. Commands whose
 * statements batch build an op (ops.ts) that says which run it joins and submit it.
 */
import type { Reply, RespError } from './reply';
import type { Session, WatchedKey } from './session';
import type { Noted, PendingReply } from './pending-reply';
import type { Op } from './ops';

/** kv.type: the Redis type of a key. Collection rows live in their own tables (one per family). */
export const enum KeyType { String = 0, Hash = 1, List = 2, Set = 3, Zset = 4, Stream = 5 }

export const enum SetCond { None = 0, Nx = 1, Xx = 2 }

export interface SetRequest {
  value: Buffer;
  /** absolute Unix ms, or null for no TTL */
  expiresAt: number | null;
  cond: SetCond;
  keepTtl: boolean;
  get: boolean;
}

/** An SQL statement: each lane connection prepares it once, on first use, by its text. */
export interface Statement { text: string }

/** Rows of a statement, each an array of column values (text format: bytea → Buffer, int2/int4 → number). */
export type Rows = unknown[][];

/** A script or function call's transaction (KeyStore.atomic): its first and last statements. */
export interface AtomicRequest {
  /** the first statement inside the transaction (scripting's begin statement: locks the declared keys) */
  begin?: { stmt: Statement; values: unknown[] };
  /** the last one before COMMIT, in one pipeline with it (script_end); sent only when `needed`
   * says so of the begin statement's rows (script_end: when the begin statement placed something) */
  end?: { stmt: Statement; values: unknown[]; needed?: (begun: Rows) => boolean };
  /** sent once, in one pipeline with the call's first write (scripting's script_wrote: marks the
   * call as having written, for SCRIPT KILL on other instances) */
  wrote?: Statement;
  /** set: the call may share one transaction with other queued calls of its kind (a batch,
   * workers/storage/script-batch.ts); what the batch's first statement needs of it */
  share?: AtomicShare;
  /** asked while the call waits for a script connection, all held: a reply (BUSY behind a call
   * past busy-reply-threshold) ends the wait with it (workers/storage/script-busy.ts) */
  busy?: () => RespError | undefined;
  /** the client the call is from: its calls run one at a time, in the order queued, and may
   * share a batch (a pipelining client's EVALSHAs: workers/storage/script-pool.ts) */
  chain?: object;
  /** told once the call is in the script connections' queue (the client's next pipelined call
   * may be queued behind it: workers/script-join.ts) */
  queued?: () => void;
}

/** A script or function call's part in a batch's first statement and its kill markers. */
export interface AtomicShare {
  /** 1 EVAL, 2 FCALL: calls of one kind share a transaction (SCRIPT KILL tells them apart by it) */
  kind: 1 | 2;
  db: number;
  keys: Buffer[];
  /** EVAL: the body to store */
  store?: { sha: string; body: Buffer };
  /** EVALSHA: the sha whose presence the batch checks (its row's `known`) */
  check?: string;
  stmts: {
    /** script_batch_begin: (dbs, keys, now, kind, checks, store shas, store bodies) → lib_version, placed, unknown */
    begin: Statement;
    /** the call's first write takes the session-level "written" marker … */
    wrote: Statement;
    /** … given back when the call ends (the batch's next call has not written) */
    unwrote: Statement;
    /** before COMMIT when placeholders were made: (dbs, keys) */
    end: Statement;
  };
}

/** What the body of a call's transaction gets, once per attempt. */
export interface AtomicRun {
  /** a KeyStore whose statements run at once inside the transaction, in the order sent */
  readonly store: KeyStore;
  /** the begin statement's rows (none without one) */
  readonly begun: Rows;
  /** 0, then 1, 2… when Postgres made the transaction start over (serialization failure, deadlock) */
  readonly attempt: number;
  /** the call is about to write: the request's `wrote` statement goes with the next statement */
  markWritten(): void;
  /** a statement sent with the next one, in its sync group, ahead of it (a script call's lock of
   * the keys a command is about to touch: no Sync and ReadyForQuery of its own); `done` gets its
   * rows, or null when it failed (the failure is the transaction's: it restarts or answers it) */
  ahead(stmt: Statement, values: unknown[], done: (rows: Rows | null) => void): void;
  /** no later call joins this transaction (a SCRIPT KILL stopped this one: the KILL waits for
   * the transaction to end) */
  endBatch(): void;
}

export interface KeyStore {
  /**
   * Queues a command's op (ops.ts) on the session's lane, in order with its other commands, and
   * returns it: the op is the PendingReply the command answers with.
   */
  submit<T extends Op>(s: Session, op: T): T;
  /**
   * Runs one statement on the session's lane, in order with its other commands, and maps the
   * rows to the reply. Values: Buffer (sent binary), string (text), null. Unqualified table
   * names resolve in the keyspace schema (search_path).
   */
  exec(s: Session, stmt: Statement, values: unknown[], map: (rows: Rows) => Reply | Noted): PendingReply;
  /**
   * SET with NX, XX, GET or KEEPTTL: one exact set_cond() call; `map` gets its one row
   * (status int2: 1 set, 0 not set, 2 wrong type; old bytea: the previous string, for GET).
   */
  setCond(s: Session, key: Buffer, req: SetRequest, map: (rows: Rows) => Reply | Noted): PendingReply;
  del(s: Session, keys: Buffer[]): PendingReply;
  exists(s: Session, keys: Buffer[]): PendingReply;
  /** WATCH: adds the keys (of the session's db) to s.watched at once; OK once they are filled */
  watch(s: Session, keys: Buffer[]): PendingReply;
  /** the session stops watching these (EXEC, DISCARD, UNWATCH, RESET, disconnect): marks released */
  unwatch(s: Session, watched: WatchedKey[]): void;
  /**
   * MULTI/EXEC: runs `body` (which calls store methods) and sends every statement it produced as
   * one Postgres transaction, after checking that no watched key changed. Resolves to the body's
   * replies, null when a watched key changed (EXEC then answers a null array), or the error when
   * Postgres did not commit.
   */
  transaction(s: Session, watched: WatchedKey[], body: () => (Reply | PromiseLike<Reply>)[]): Promise<Reply[] | null | RespError>;
  /**
   * EVAL/FCALL: runs `body` inside one Postgres transaction (REPEATABLE READ) on a connection kept
   * for scripts, and commits. When Postgres reports a serialization failure or a deadlock the
   * transaction is rolled back and body runs again from the start (nothing of it was visible).
   * Resolves to body's value once committed, or the error when it could not commit.
   */
  atomic<T>(s: Session, req: AtomicRequest, body: (run: AtomicRun) => Promise<T>): Promise<T | RespError>;
  dbsize(s: Session): PendingReply;
  /** db null = every database */
  flush(s: Session, db: number | null): PendingReply;
}
