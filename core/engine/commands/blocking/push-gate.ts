/**
 * Which commands hold their client's later commands until their own reply left (docs/blocking.md,
 * "Commands pipelined behind a push"). A push that serves blocked clients answers once they were
 * served (WriteHook.holdReply), but a command pipelined behind it is dispatched at once and its
 * statement queued on the client's lane right behind the push's: it would read the list before
 * the woken clients' pops, which run on their own lanes (RPUSH k x; LRANGE k 0 -1 saw x still
 * there, where Redis serves the waiters first). So a write to a key some client blocks on
 * (anywhere: this worker, another, another instance, by the bus's view) holds what follows it.
 *
 * Where the waited key lives is not always the command's keys in the client's db: MOVE and
 * COPY … DB n write into another db, SWAPDB and FLUSHDB/FLUSHALL touch every key of their dbs,
 * and EXEC's queued writes follow the SELECTs queued before them. A script's undeclared keys
 * are not known before it runs: its own hold (holdWhile in workers/dispatch.ts) also waits for
 * the reply holds its writes took.
 *
 * Asked by dispatch only while the blocking commands listen to the write hook (somebody blocks
 * somewhere): a write then costs its keys' look-ups here; with nobody blocked, nothing.
 */
import type { Session } from '../../session';
import { keysOf, type CommandSpec } from '../spec';
import { kFlagWrite } from '../flags';

/** Where clients block anywhere, by the bus's view. */
export interface Waited {
  /** whether a client blocks on (db, key) */
  key(db: number, key: Buffer): boolean;
  /** whether a client blocks on any key of db (-1: of any db) */
  db(db: number): boolean;
}

/** EXEC's queued writes and scripts' declared keys may push too (their specs are not `write`) */
const kRunsWrites: ReadonlySet<string> = new Set(['exec', 'eval', 'evalsha', 'fcall']);

/** Whether the command may wake a client blocked on one of its keys. */
export function mayWake(waited: Waited, s: Session, db: number, spec: CommandSpec, argv: Buffer[]): boolean {
  if ((spec.flagBits & kFlagWrite) !== 0) return writeWakes(waited, db, spec, argv);
  if (!kRunsWrites.has(spec.name)) return false;
  if (spec.name !== 'exec') return keysWaited(waited, db, spec, argv);
  // EXEC: its queued writes, each in the db the SELECTs queued before it name (a SELECT that
  // will fail is followed as if it did not: its argument is no db)
  let at = db;
  for (const q of s.multi ?? []) {
    const name = q.spec.name;
    if (name === 'select') {
      const n = dbNumber(q.argv[1]);
      if (n !== undefined) at = n;
    } else if ((q.spec.flagBits & kFlagWrite) !== 0 ? writeWakes(waited, at, q.spec, q.argv)
      : kRunsWrites.has(name) && keysWaited(waited, at, q.spec, q.argv)) {
      return true;
    }
  }
  return false;
}

/** A write command: its keys, and the dbs it writes into besides the client's. */
function writeWakes(waited: Waited, db: number, spec: CommandSpec, argv: Buffer[]): boolean {
  switch (spec.name) {
    case 'move': {
      // the key lands in the target db (move_to wakes there); move_from only in the source
      const to = dbNumber(argv[2]);
      return (to !== undefined && waited.key(to, argv[1])) || waited.key(db, argv[1]);
    }
    case 'copy': {
      const to = copyTarget(argv);
      return to !== undefined && to !== db ? waited.key(to, argv[2]) : keysWaited(waited, db, spec, argv);
    }
    case 'swapdb': {
      const a = dbNumber(argv[1]);
      const b = dbNumber(argv[2]);
      return (a !== undefined && waited.db(a)) || (b !== undefined && waited.db(b));
    }
    case 'flushdb':
      return waited.db(db);
    case 'flushall':
      return waited.db(-1);
  }
  return keysWaited(waited, db, spec, argv);
}

/** COPY's DB option (the last one given, as COPY parses them), or undefined */
function copyTarget(argv: Buffer[]): number | undefined {
  let to: number | undefined;
  for (let j = 3; j + 1 < argv.length; j++) {
    if (argv[j].length === 2 && argv[j].toString('latin1').toLowerCase() === 'db') to = dbNumber(argv[++j]);
  }
  return to;
}

/** a db index argument, or undefined when it is none (the command will fail) */
function dbNumber(arg: Buffer | undefined): number | undefined {
  if (arg === undefined || arg.length === 0 || arg.length > 10) return undefined;
  const n = Number(arg.toString('latin1'));
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

function keysWaited(waited: Waited, db: number, spec: CommandSpec, argv: Buffer[]): boolean {
  const ks = spec.keys;
  if (spec.getKeys === undefined && ks.numkeysAt === undefined && ks.afterKeyword === undefined) {
    // fixed positions (LPUSH, RPUSH, ZADD, LMOVE…): no key array
    if (ks.first === 0) return false;
    const last = ks.last < 0 ? argv.length + ks.last : ks.last;
    for (let i = ks.first; i <= last && i < argv.length; i += ks.step) if (waited.key(db, argv[i])) return true;
    return false;
  }
  const keys = keysOf(spec, argv);
  if (keys === undefined) return false;
  for (let i = 0; i < keys.length; i++) if (waited.key(db, keys[i])) return true;
  return false;
}
