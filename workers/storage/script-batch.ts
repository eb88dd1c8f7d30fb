/**
 * Several queued script calls as one transaction on one script connection (./script-pool.ts takes
 * them from its queue when a connection frees up: the calls that waited meanwhile, of one kind):
 *
 *   BEGIN ISOLATION LEVEL REPEATABLE READ + script_batch_begin(every call's KEYS, shas, bodies)
 *   call 1's redis.call statements … call 2's … call n's      (one after another: each call sees
 *   [placeholders' DELETE] + COMMIT                            the ones before it, as in Redis)
 *   ─▶ every call's reply, then its writes reported
 *
 * What the calls share is BEGIN, the first statement, the end statement and COMMIT (and in `logged`
 * mode one WAL flush): at 50 clients, 8 script connections, GET + SET + EXPIRE went from 5 sync
 * groups per call to 3 plus 2 per batch (docs/BENCHMARKS.md "Scripts: calls that share a
 * transaction"). Atomicity per call is kept: no other transaction sees any of the batch before its
 * COMMIT, and within it the calls run one at a time.
 *
 * - A Lua error in one call ends that call only; what it and the others wrote commits (Redis keeps
 *   a failed script's earlier writes).
 * - 40001 / 40P01: the whole batch rolls back and runs again (nothing of it was visible, no reply
 *   left).
 * - Any other Postgres error: the batch rolls back and each of its calls runs again alone, in its
 *   own transaction, so only the call that meets the error answers it (as without batches).
 * - A call stopped by SCRIPT/FUNCTION KILL ends the batch: the calls before it and itself commit,
 *   the later ones go back to the front of the queue (a KILL from another instance waits for the
 *   killed call's transaction to end). "Written" is a per-call session-level marker (./script-tx.ts).
 */
import type { AtomicRequest, AtomicRun, AtomicShare, Rows } from '../../core/engine/key-store';
import type { NativePgConnection } from '../../core/engine/pg-driver/native-conn';
import { encodeBufferArray, int2Array, int8 } from '../../core/engine/pg-driver/binary-array';
import { ScriptStore } from './script-store';
import { ScriptTx } from './script-tx';

export interface QueuedCall {
  req: AtomicRequest;
  body(run: AtomicRun): Promise<unknown>;
  resolve(v: unknown): void;
  /** Date.now() when queued, while tracing (./script-trace.ts) */
  queuedAt?: number;
}

/** What an attempt of a batch came to. */
export type BatchOutcome =
  | { kind: 'committed'; values: unknown[]; ran: number }
  /** `at`: the call whose statements met the serialization failure or deadlock (undefined: BEGIN's or COMMIT's) */
  | { kind: 'restart'; ran: number; at?: number }
  | { kind: 'failed' };

/** script_batch_begin's parameters for these calls. */
function beginValues(calls: readonly QueuedCall[]): unknown[] {
  const dbs: number[] = [];
  const keys: Buffer[] = [];
  const checks: string[] = [];
  const shas: string[] = [];
  const bodies: Buffer[] = [];
  for (const c of calls) {
    const sh = c.req.share as AtomicShare;
    for (const k of sh.keys) dbs.push(sh.db), keys.push(k);
    if (sh.check !== undefined) checks.push(sh.check);
    if (sh.store !== undefined) shas.push(sh.store.sha), bodies.push(sh.store.body);
  }
  // empty arrays go as NULL (unnest of NULL: no rows): the driver types an empty array as bytea[]
  return [
    dbs.length > 0 ? int2Array(dbs) : null, keys.length > 0 ? encodeBufferArray(keys) : null, int8(Date.now()),
    (calls[0].req.share as AtomicShare).kind, checks.length > 0 ? checks : null,
    shas.length > 0 ? shas : null, bodies.length > 0 ? encodeBufferArray(bodies) : null,
  ];
}

/**
 * One attempt of the batch on conn: runs the calls in order, then COMMIT or ROLLBACK. Once its
 * calls ran budgetMs (--script-batch-ms) it commits, and the calls it did not reach run in the
 * next batch: every reply waits for COMMIT, and a BullMQ job lock (SET … PX) set by a batch's
 * first call counts down at once while its Worker hears of the job only at COMMIT (16 calls of
 * moveToFinished took 0.5–1.6 s under load here).
 */
export async function runBatchOnce(conn: NativePgConnection, calls: readonly QueuedCall[], attempt: number, budgetMs: number, hold?: unknown[]): Promise<BatchOutcome> {
  const stmts = (calls[0].req.share as AtomicShare).stmts;
  const started = performance.now();
  const tx = new ScriptTx(conn, 'BEGIN ISOLATION LEVEL REPEATABLE READ', undefined, hold);
  const begun = await tx.rows(stmts.begin.text, beginValues(calls));
  const libVersion = begun[0]?.[0] ?? null;
  const placed = Number(begun[0]?.[1] ?? 0);
  const unknown = Number(begun[0]?.[2] ?? 0);
  const values: unknown[] = [];
  let ran = 0;
  let check = 0;
  let at: number | undefined;
  // bodies stored by the batch's EVALs: an EVALSHA after one (a client's EVAL, then EVALSHA of
  // it, pipelined) finds its script, as it would after that EVAL's own transaction
  let stored: Set<string> | undefined;
  for (let i = 0; i < calls.length && !tx.failed; i++) {
    const sh = calls[i].req.share as AtomicShare;
    // the row script_begin would have given this call alone: (lib_version, placed, known)
    const known = sh.check === undefined || (unknown & (1 << check++)) === 0 || stored?.has(sh.check) === true;
    if (sh.store !== undefined) (stored ??= new Set()).add(sh.store.sha);
    const row: Rows = [[libVersion, placed, known]];
    let last = false;
    tx.callStart(stmts.wrote.text, stmts.unwrote.text);
    try {
      values.push(await calls[i].body({
        store: new ScriptStore(tx), begun: row, attempt, markWritten: () => tx.markWritten(),
        ahead: (stmt, values, done) => tx.ahead(stmt.text, values, done), endBatch: () => { last = true; },
      }));
    } catch (e) {
      tx.failure ??= e as Error;
    }
    ran = i + 1;
    if (tx.failed) at = i;
    // the replies wait for COMMIT: past the budget, the rest go to the next batch
    if (last || performance.now() - started >= budgetMs) break;
  }
  // every call's placeholders, those of calls a KILL left for the next batch too
  const end = placed > 0 && !tx.failed ? { sql: stmts.end.text, values: endValues(calls) } : undefined;
  await tx.finish(end);
  if (tx.restart) return { kind: 'restart', ran, at };
  if (tx.failed) return { kind: 'failed' };
  return { kind: 'committed', values, ran };
}

function endValues(calls: readonly QueuedCall[]): unknown[] {
  const dbs: number[] = [];
  const keys: Buffer[] = [];
  for (const c of calls) {
    const sh = c.req.share as AtomicShare;
    for (const k of sh.keys) dbs.push(sh.db), keys.push(k);
  }
  return [int2Array(dbs), encodeBufferArray(keys)];
}
