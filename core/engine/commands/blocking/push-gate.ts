/**
 * Which commands hold their client's later commands until their own reply left (docs/blocking.md,
 * "Commands pipelined behind a push"). A push that serves blocked clients answers once they were
 * served (WriteHook.holdReply), but a command pipelined behind it is dispatched at once and its
 * statement queued on the client's lane right behind the push's: it would read the list before
 * the woken clients' pops, which run on their own lanes (RPUSH k x; LRANGE k 0 -1 saw x still
 * there, where Redis serves the waiters first). So a write to a key some client blocks on
 * (anywhere: this worker, another, another instance, by the bus's view) holds what follows it.
 *
 * Asked by dispatch only while the blocking commands listen to the write hook (somebody blocks
 * somewhere): a write then costs its keys' look-ups here; with nobody blocked, nothing.
 */
import type { Session } from '../../session';
import { keysOf, type CommandSpec } from '../spec';
import { kFlagWrite } from '../flags';

/** Whether a client blocks on (db, key) anywhere, by the bus's view. */
export type Waited = (db: number, key: Buffer) => boolean;

/** EXEC's queued writes and scripts' declared keys may push too (their specs are not `write`) */
const kRunsWrites: ReadonlySet<string> = new Set(['exec', 'eval', 'evalsha', 'fcall']);

/** Whether the command may wake a client blocked on one of its keys. */
export function mayWake(waited: Waited, s: Session, db: number, spec: CommandSpec, argv: Buffer[]): boolean {
  if ((spec.flagBits & kFlagWrite) !== 0) return keysWaited(waited, db, spec, argv);
  if (!kRunsWrites.has(spec.name)) return false;
  if (spec.name !== 'exec') return keysWaited(waited, db, spec, argv);
  // EXEC: its queued writes (a SELECT among them: their keys are looked up in every db it names
  // would be exact; the client's db is the common case, and a miss only loses this hold)
  for (const q of s.multi ?? []) {
    if ((q.spec.flagBits & kFlagWrite) !== 0 && keysWaited(waited, db, q.spec, q.argv)) return true;
  }
  return false;
}

function keysWaited(waited: Waited, db: number, spec: CommandSpec, argv: Buffer[]): boolean {
  const ks = spec.keys;
  if (spec.getKeys === undefined && ks.numkeysAt === undefined && ks.afterKeyword === undefined) {
    // fixed positions (LPUSH, RPUSH, ZADD, LMOVE…): no key array
    if (ks.first === 0) return false;
    const last = ks.last < 0 ? argv.length + ks.last : ks.last;
    for (let i = ks.first; i <= last && i < argv.length; i += ks.step) if (waited(db, argv[i])) return true;
    return false;
  }
  const keys = keysOf(spec, argv);
  if (keys === undefined) return false;
  for (let i = 0; i < keys.length; i++) if (waited(db, keys[i])) return true;
  return false;
}
