/**
 * A client's pipelined script calls queued back to back instead of one after another's reply.
 *
 * A script call runs on a script connection, not the client's lane, so dispatch holds the
 * client's later commands until it answered (./dispatch.ts holdWhile). Held one by one, a BullMQ
 * Worker's calls (moveToFinished of every finished job, extendLock, moveToActive, all on one
 * connection) each waited for the previous call's whole transaction: at concurrency 50, 0.6–1.8 s
 * per call, and job locks expired before their renewal ran (docs/BENCHMARKS.md "Why 27 of 10,000
 * jobs ran twice"). Here a script call read while the client is held by script calls only is run
 * at once, as soon as the call before it is queued for a connection:
 *
 *   EVALSHA 1 ─▶ queued ─┐  EVALSHA 2 ─▶ queued ─┐  EVALSHA 3 …      GET (held: not a call)
 *                        └─▶ run 2               └─▶ run 3           └─▶ runs once 1, 2, 3 answered
 *
 * The script pool runs a client's calls one at a time in the order queued, and takes those queued
 * together into one batch (workers/storage/script-pool.ts, script-batch.ts): each call stays
 * atomic and sees the ones before it; a Lua error ends its own call only. Queued in order because
 * call n + 1 starts only once call n is in the queue (its run may wait first: for the client's
 * lane, or for a script body fetched from Postgres). Anything else read meanwhile (a GET, MULTI,
 * a call whose write would wake a blocked client: push-gate) waits for every call before it, and
 * so does every command after it, as before.
 */
import { RespError } from '../core/engine/reply';
import type { DispatchClient } from './dispatch';

/** the commands that are one script-connection call each (inOrder in core/engine/commands/scripting/call.ts) */
const kScriptCalls: ReadonlySet<string> = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);

/** a client's calls queued or running at most: two batches of the pool's 16, so one forms while
 * one runs; more would hold a call's locks (and its reply) behind a long queue of its own client */
const kMaxOpen = 32;

export const isScriptCall = (name: string): boolean => kScriptCalls.has(name);

/** A script call may be queued behind the client's calls: not a write that wakes a blocked client (push-gate.ts). */
function mayJoin(c: DispatchClient, argv: Buffer[]): boolean {
  if (c.closing || c.multi !== undefined) return false;
  const spec = c.server.commands.resolve(argv);
  if (spec instanceof RespError || !kScriptCalls.has(spec.name)) return false;
  const gate = c.state.writeHook.holdsLater;
  return gate === undefined || !gate(c, c.db, spec, argv);
}

/** A hold (c.held) made by a script call that dispatch ran: the calls it waits for. */
export class CallHold {
  /** calls not answered yet */
  private open = 0;
  /** the last call is queued for a connection: a script call may be queued behind it */
  private ready = false;

  constructor(readonly held: Buffer[][], private readonly c: DispatchClient, private readonly release: () => void,
    private readonly run: (c: DispatchClient, argv: Buffer[]) => void) {}

  /** A call of this hold: the hold ends once every call answered. */
  add(done: PromiseLike<unknown>, queued: PromiseLike<unknown>): void {
    this.open++;
    this.ready = false;
    done.then(this.answered, this.answered);
    queued.then(this.queued, this.queued);
  }

  /** argv, just read while held, may run now (nothing is held before it) */
  joinsNow(argv: Buffer[]): boolean {
    return this.ready && this.open < kMaxOpen && this.held.length === 0 && this.c.held === this.held && mayJoin(this.c, argv);
  }

  private readonly queued = (): void => {
    this.ready = true;
    this.next();
  };

  private readonly answered = (): void => {
    if (--this.open === 0) this.release();
    else this.next();
  };

  /** runs held script calls at the head of the hold while one may join (each that holds clears `ready`) */
  private next(): void {
    const h = this.held;
    while (this.ready && this.open < kMaxOpen && this.c.held === h && h.length > 0 && mayJoin(this.c, h[0])) this.run(this.c, h.shift()!);
  }
}
