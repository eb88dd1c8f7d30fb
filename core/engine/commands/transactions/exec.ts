/**
 * EXEC — run the queued commands as one Postgres transaction sent as one pipeline. A queueing
 * error aborts (EXECABORT); a changed WATCHed key gives a null array; a runtime error (WRONGTYPE)
 * is returned in its slot while the other commands take effect, as in Redis. Once committed, the
 * queued writes are reported to the write hook, each with the db it ran in (SELECT may be queued).
 * Each queued command is checked against the user's rules again, as Redis 7.0 does: a rule
 * changed since it was queued refuses it in its slot (NOPERM … rules changed …), the rest run.
 * https://redis.io/commands/exec/
 */
import { RespError, kNullArray, type Reply } from '../../reply';
import { defineCommand } from '../define';
import { kFlagWrite, kFlagsModify } from '../flags';
import { withoutBlocking } from '../blocking/context';
import { noteOf } from '../../write-hook';
import { probePresence, statuses, type Presence } from '../../key-presence';
import type { RunResult } from '../spec';
import type { Session, WatchedKey } from '../../session';
import { aclDenied, execRecheckText } from '../../../acl/enforce';

const kWithout = new RespError('ERR EXEC without MULTI');
const kAbort = new RespError('EXECABORT Transaction discarded because of previous errors.');

export const exec = defineCommand({
  name: 'exec', arity: 1, flags: ['noscript', 'loading', 'stale', 'skip_slowlog'], acl: ['slow', 'transaction'],
  group: 'transactions', since: '1.2.0', summary: 'Executes all commands in a transaction.',
  async run(s): Promise<Reply> {
    const queued = s.multi;
    if (queued === undefined) return kWithout;
    const aborted = s.multiAborted;
    const watched = s.watched;
    s.multi = undefined;
    s.multiAborted = false;
    s.watched = [];
    if (aborted) {
      s.server.store.unwatch(s, watched);
      return kAbort;
    }
    const hook = s.server.writeHook;
    const startDb = s.db;
    // filled only while the hook listens: nothing is allocated for it otherwise
    let dbs: number[] | undefined = hook.active || hook.afterActive ? [] : undefined;
    const runs: RunResult[] = [];
    // `new` / `keymiss` / lazy `expired` on: each queued command's keys probed inside the
    // transaction, just before it (a key an earlier queued command created is live for a later one)
    const probes: (Presence | undefined)[] | undefined = hook.presence ? [] : undefined;
    const runOne = (i: number): RunResult => runs[i] = runQueued(i);
    const runQueued = (i: number): RunResult => {
      const { spec, argv } = queued[i];
      if (dbs !== undefined) dbs[i] = s.db;
      if (!s.user.full) {
        const denied = aclDenied(s, spec, argv, 'multi');
        if (denied !== 0) return new RespError(execRecheckText(denied));
      }
      if (probes !== undefined) probes[i] = probePresence(s, s.db, spec, argv);
      if (hook.beforeActive && (spec.flagBits & kFlagWrite) !== 0) hook.before(s.db, spec, argv);
      s.denyBlocking = true;
      try {
        return spec.run(s, argv);
      } catch (e) {
        return new RespError(`ERR internal error: ${(e as Error).message}`);
      } finally {
        s.denyBlocking = false;
      }
    };
    // blocking commands answer as their non-blocking forms (blocking/context.ts)
    let replies: Reply[] | null | RespError;
    if (queued.some(({ spec }) => kOwnTransaction.has(spec.name))) {
      const steps = inSteps(s, queued, watched, runOne);
      // the client's later commands wait for the last step (the calls' own holds start too late)
      s.holdWhile?.(steps);
      replies = await steps;
    } else {
      replies = await s.server.store.transaction(s, watched, () => withoutBlocking(() => queued.map((_, i) => runOne(i))));
    }
    // a listener that came while the transaction ran (a client that blocked meanwhile, waiting for
    // these keys: it was woken by nothing and stayed blocked, stream-cgroups "key type changed
    // with transaction" 4 runs in 40) hears it too, with the dbs the queued SELECTs gave
    if (dbs === undefined && hook.active && Array.isArray(replies)) dbs = dbsOf(startDb, queued, replies);
    // the read cache's second bump, whatever the outcome (a lost COMMIT may have committed)
    if (dbs !== undefined && hook.afterActive) {
      for (let i = 0; i < dbs.length; i++) if ((queued[i].spec.flagBits & kFlagsModify) !== 0) hook.after(dbs[i], queued[i].spec, queued[i].argv);
    }
    if (dbs !== undefined && hook.active && Array.isArray(replies)) {
      for (let i = 0; i < queued.length; i++) {
        const probe = probes?.[i];
        hook.command(dbs[i], queued[i].spec, queued[i].argv, replies[i], noteOf(runs[i]),
          probe === undefined ? undefined : statuses(probe), s.id);
      }
    }
    return replies ?? kNullArray;
  },
});

/**
 * Commands that run as transactions of their own on a script connection (store.atomic), not on
 * the lane: a script call (its redis.call replies are needed one at a time) and a change of the
 * function libraries.
 */
const kOwnTransaction: ReadonlySet<string> = new Set([
  'eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro',
  'function|load', 'function|delete', 'function|flush', 'function|restore',
]);

/**
 * A block with script calls, in order: each run of other commands is one transaction on the lane,
 * each script call its own transaction, started only once what was queued before it committed
 * (and its own command run only then: an EVAL's body is stored before a later EVALSHA looks for
 * it, a GET sees what the script wrote). Started all at once, they ran concurrently on other
 * connections: an EVALSHA behind an EVAL of the same script found it not yet committed (NOSCRIPT,
 * and its flush of the engine made the EVAL answer NOSCRIPT too), and a script ran even when a
 * WATCHed key had changed. The WATCH check goes with the first step (alone if a call is first).
 */
async function inSteps(s: Session, queued: { spec: { name: string } }[], watched: WatchedKey[],
  runOne: (i: number) => RunResult): Promise<Reply[] | null | RespError> {
  const store = s.server.store;
  const replies: Reply[] = [];
  let unchecked = watched;
  for (let i = 0; i < queued.length;) {
    let end = i;
    while (end < queued.length && !kOwnTransaction.has(queued[end].spec.name)) end++;
    const from = i;
    // a call first: an empty transaction checks the WATCHed keys before it
    const step = end > from || unchecked.length > 0
      ? await store.transaction(s, unchecked, () => withoutBlocking(() => { const rs = []; for (let k = from; k < end; k++) rs.push(runOne(k)); return rs; }))
      : [];
    unchecked = [];
    if (step === null || (step instanceof RespError && replies.length === 0)) return step;
    for (let k = from; k < end; k++) replies.push(step instanceof RespError ? step : step[k - from]);
    i = end;
    if (i < queued.length) replies.push(await withoutBlocking(() => runOne(i++)));
  }
  return replies;
}

/** The db each queued command ran in: `db` at EXEC, then what each SELECT that answered OK chose. */
function dbsOf(db: number, queued: { spec: { name: string }; argv: Buffer[] }[], replies: Reply[]): number[] {
  return queued.map(({ spec, argv }, i) => {
    const at = db;
    if (spec.name === 'select' && !(replies[i] instanceof RespError)) db = Number(argv[1].toString('latin1'));
    return at;
  });
}
