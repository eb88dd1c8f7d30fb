/**
 * One EVAL/EVALSHA/FCALL as one Postgres transaction (KeyStore.atomic): the declared keys locked
 * first, the script's commands inside, COMMIT, then the reply and the write hook's reports. A
 * Lua runtime error does not roll back: what ran before it commits, as in Redis. A serialization
 * failure or deadlock re-runs the whole script (a fresh CallHost, so nothing of the failed
 * attempt is reported); only the committed attempt's reply reaches the client.
 */
import type { AtomicRequest, Rows } from '../../key-store';
import { Raw, RespError, type Reply } from '../../reply';
import type { Session } from '../../session';
import { encodeBufferArray, int2Array, int8 } from '../../pg-driver/binary-array';
import { CallHost } from './call-host';
import { callEnded, callStarted } from './slow-calls';
import { busyReply } from './busy';
import { kScriptingSql } from './sql';
import { kFlagsModify, kFlagWrite } from '../flags';
import { statuses } from '../../key-presence';

const kShareStmts = { begin: kScriptingSql.batchBegin, wrote: kScriptingSql.callWrote, unwrote: kScriptingSql.callUnwrote, end: kScriptingSql.end };
/** the addon's error for a killed call (core/native/lua/redis-api.c) */
const kKilledText = Buffer.from('Script killed by user with ');

export interface CallPlan {
  keys: Buffer[];
  /** EVAL's body: stored in Postgres by the first statement (if absent: another instance may
   * have flushed it since this process compiled it) */
  store?: { sha: string; body: Buffer };
  /** EVALSHA's sha: the first statement says whether it is still stored (`known`, below) */
  check?: string;
  /** FCALL: the first statement also reads the function-library version */
  libraries?: boolean;
  /** FCALL's function (the slow-call log line names it; EVAL's is its sha) */
  fn?: string;
  readOnly: boolean;
  /** runs the script with `host` once the keys are locked; the reply bytes (or an error reply) */
  run(host: CallHost, begun: Rows, store: import('../../key-store').KeyStore): Promise<Buffer>;
  /** told when the call is queued for a script connection (inOrder's `queued`) */
  queued?: () => void;
}

/** keys in bytea order (Buffer.compare is Postgres's bytea comparison), duplicates dropped */
function distinctSorted(keys: readonly Buffer[]): Buffer[] {
  const out = [...keys].sort(Buffer.compare);
  let n = 1;
  for (let i = 1; i < out.length; i++) if (!out[i].equals(out[n - 1])) out[n++] = out[i];
  out.length = n;
  return out;
}

/** false when EVALSHA's script is no longer stored (a SCRIPT FLUSH, maybe on another instance) */
export const scriptKnown = (begun: Rows): boolean => begun[0]?.[2] !== false;

export async function runCall(s: Session, plan: CallPlan): Promise<Reply> {
  const db = s.db;
  const { keys } = plan;
  const dbs = int2Array(keys.map(() => db));
  const names = encodeBufferArray(keys);
  // a client's calls run in the order it sent them, and its pipelined ones may share a batch
  const req: AtomicRequest = { wrote: kScriptingSql.wrote, busy: () => busyReply(s), chain: s, queued: plan.queued };
  if (keys.length > 0 || plan.store !== undefined || plan.check !== undefined || plan.libraries) {
    const sha = plan.store?.sha ?? plan.check ?? null;
    if (keys.length === 0) {
      // kv not named: a keyless call holds no lock on it (FLUSHALL does not wait for a runaway one)
      req.begin = { stmt: kScriptingSql.beginNoKeys, values: [sha, plan.store?.body ?? null] };
    } else {
      // the begin statement locks KEYS in the array's order: (db, key) order, each once (one db here)
      const locked = keys.length > 1 ? distinctSorted(keys) : keys;
      const lockedDbs = locked === keys ? dbs : int2Array(locked.map(() => db));
      req.begin = { stmt: kScriptingSql.begin, values: [lockedDbs, locked === keys ? names : encodeBufferArray(locked), int8(Date.now()), sha,
        plan.store?.body ?? null] };
    }
  }
  // the begin statement's second column: the placeholders it made, which script_end drops (none: the
  // keys all existed, the usual case, and the statement is not sent)
  if (keys.length > 0) req.end = { stmt: kScriptingSql.end, values: [dbs, names], needed: (begun) => Number(begun[0]?.[1] ?? 1) !== 0 };
  // queued behind busy script connections, the call may share a transaction with others (docs/scripting.md)
  req.share = { kind: plan.fn === undefined ? 1 : 2, db, keys, store: plan.store, check: plan.check, stmts: kShareStmts };
  let host: CallHost | undefined;
  const hook = s.server.writeHook;
  // CLIENT TRACKING remembers the running call's keys when it first reads (tracker.scriptRead):
  // the client's next pipelined call may be dispatched before this one runs, so it is put back
  // when this call's body starts (the calls of a client run one at a time)
  const tracked = s.tracking?.script;
  let out: Buffer | RespError;
  try {
    out = await s.server.store.atomic(s, req, async (tx) => {
      if (s.tracking !== undefined) s.tracking.script = tracked;
      host = new CallHost(s, tx.store, plan.readOnly, tx.markWritten, { db, keys }, tx.ahead);
      const watched = callStarted(s.server, plan.fn === undefined ? 'script' : 'function', plan.fn ?? plan.store?.sha ?? plan.check ?? '?');
      try {
        const reply = await plan.run(host, tx.begun, tx.store);
        host.dropPlaceholders();
        // SCRIPT/FUNCTION KILL waits for the killed call's transaction to end: no call joins it after this one
        if (reply[0] === 45 /* - */ && reply.includes(kKilledText)) tx.endBatch();
        return reply;
      } finally {
        callEnded(watched);
      }
    });
  } finally {
    // the read cache's second bump for every write the call made, whatever the outcome (thrown included)
    if (hook.afterActive && host !== undefined) {
      for (const w of host.writes) if ((w.spec.flagBits & kFlagsModify) !== 0) hook.after(w.db, w.spec, w.argv);
    }
  }
  if (out instanceof RespError) return out;
  if (hook.active && host !== undefined) {
    for (const w of host.writes) {
      // a read kept for the cache's bump is not a write to report; PFCOUNT's events say whether it rewrote
      if (w.probe === undefined && (w.spec.flagBits & kFlagWrite) === 0 && w.spec.events === undefined) continue;
      if (w.probe !== undefined) hook.command(w.db, w.spec, w.argv, w.reply, w.note, statuses(w.probe), s.id);
      else if (!(w.reply instanceof RespError)) hook.command(w.db, w.spec, w.argv, w.reply, w.note, undefined, s.id);
    }
  }
  // an error reply is a RespError, so INFO errorstats counts it (redis.error_reply('MY_CODE …'))
  return out[0] === 45 /* - */ ? new RespError(out.toString('latin1', 1, out.length - 2)) : new Raw(out);
}

/**
 * A command that runs on a script connection: the client's later commands wait until it
 * answered (Session.holdWhile), so they see what it did and it sees what came before. Its
 * `queued` (given to runCall) settles once the call is queued for a connection, or has answered
 * without one: a script call pipelined right behind it may then be queued too, in order
 * (workers/script-join.ts), and run in the same batch.
 */
export function inOrder(run: (s: Session, argv: Buffer[], queued: () => void) => Promise<Reply>): (s: Session, argv: Buffer[]) => Promise<Reply> {
  return (s, argv) => {
    let queued!: () => void;
    const inQueue = new Promise<void>((r) => (queued = r));
    const p = run(s, argv, queued);
    p.then(queued, queued);
    s.holdWhile?.(p, inQueue);
    return p;
  };
}
