/**
 * What a script's redis.call / redis.pcall runs: the command through the same table as a
 * client's, as the script's session, inside the call's transaction, with Redis's script rules
 * (scriptCall in Redis 7.0's script.c) and texts:
 *
 *   unknown command or subcommand     → ERR Unknown Redis command called from script
 *   wrong arity                       → ERR Wrong number of args calling Redis command from script
 *   `noscript` (MULTI, EVAL, BLPOP…)  → ERR This Redis command is not allowed from script
 *   the caller's ACL user may not (core/acl) → ERR The user executing the script can't run this command or subcommand (or its keys', channels' texts)
 *   write / may_replicate in a read-only call (EVAL_RO, FCALL_RO, no-writes)
 *                                     → ERR Write commands are not allowed from read-only scripts.
 *
 * Keys the script did not declare are locked before the first command that touches them (one
 * statement, kScriptingSql.lock, in the sync group of the command's own: no round trip added), as KEYS were
 * at the start: in the call's REPEATABLE READ transaction the lock raises 40001 when the key changed
 * after the call's snapshot, and the call runs again. So the call reads every key as if it ran
 * alone, and nobody changes what it read before it commits (docs/scripting.md "Keys a script does
 * not declare"). Keys a command reaches other than through its key arguments (KEYS, SCAN, SORT BY,
 * RANDOMKEY) are not locked.
 *
 * The reply goes back in the script's RESP version (redis.setresp). A write makes the script
 * unkillable (SCRIPT KILL answers UNKILLABLE), as Redis marks it before running the command. While
 * the write hook listens, each write's (db, command, reply) is kept and reported after COMMIT.
 */
import type { ScriptHost, ScriptRun } from '../../scripting/engine';
import { kScriptCallErrors } from '../../scripting/errors';
import type { AtomicRun, KeyStore } from '../../key-store';
import { PendingReply, type Outcome } from '../../pending-reply';
import { noteOf } from '../../write-hook';
import { probePresence, type Presence } from '../../key-presence';
import { isPromise, RespError, writeReply, type Reply } from '../../reply';
import type { Session } from '../../session';
import type { CommandSpec, RunResult } from '../spec';
import { kFlagMayReplicate, kFlagNoScript, kFlagReadonly, kFlagWrite } from '../flags';
import { ReplyWriter } from '../../../../protocol/writer';
import { ScriptSession } from './script-session';
import { withoutBlocking } from '../blocking/context';
import { aclDenied, scriptAclText } from '../../../acl/enforce';
import { checkUser } from '../../../acl/check';
import { keysOf } from '../spec';
import { encodeBufferArray, int2Array, int8 } from '../../pg-driver/binary-array';
import { kScriptingSql } from './sql';

const errorBytes = (text: string): Buffer => Buffer.from(`-ERR ${text}\r\n`);
const kUnknown = errorBytes(kScriptCallErrors.unknownCommand);
const kArity = errorBytes(kScriptCallErrors.arity);
const kNotAllowed = errorBytes(kScriptCallErrors.notAllowed);
const kReadOnly = errorBytes(kScriptCallErrors.writeInReadOnly);
const kAclInvalid = errorBytes('Invalid command passed to redis.acl_check_cmd()');
const kOne = Buffer.from(':1\r\n');
const kZero = Buffer.from(':0\r\n');
/** the reply a write refused after a KILL gets (the addon raises the kill error in its place) */
const kKilled = errorBytes('Script killed by user with SCRIPT KILL...');

/**
 * A write the script made, reported to the write hook once the transaction committed; while key
 * presence is on, also every keyed command it called (reads fire `keymiss`), with its probe.
 */
export interface ScriptWrite {
  db: number; spec: CommandSpec; argv: Buffer[]; reply: Reply; note: Outcome | undefined; probe: Presence | undefined;
}

export class CallHost implements ScriptHost {
  readonly writes: ScriptWrite[] = [];
  private readonly session: ScriptSession;
  private readonly writer = new ReplyWriter(256);
  private readonly verdict = { code: 0, pos: 0 };

  /** told before the call's first write (the transaction marks itself written: ./kill.ts) */
  private onFirstWrite: (() => void) | undefined;

  /** `db:key` (latin1) of every key this call holds locked: its KEYS, then what its commands touched */
  private readonly locked = new Set<string>();
  /** keys locked by script_lock statements that made placeholders (dropped before COMMIT) */
  private placedDbs: number[] = [];
  private placedKeys: Buffer[] = [];

  constructor(private readonly caller: Session, store: KeyStore, public readOnly: boolean, onFirstWrite?: () => void,
    declared?: { db: number; keys: readonly Buffer[] }, private readonly ahead?: AtomicRun['ahead']) {
    this.session = new ScriptSession(caller, store);
    this.onFirstWrite = onFirstWrite;
    if (declared !== undefined) for (const k of declared.keys) this.locked.add(`${declared.db}:${k.toString('latin1')}`);
  }

  /**
   * Locks the keys of this command that the call does not hold yet: the statement goes into the
   * call's transaction ahead of the command's. Its failure (40001 when a key changed since the
   * snapshot) fails the transaction, which restarts the call.
   */
  private lockTouched(db: number, spec: CommandSpec, argv: Buffer[]): void {
    const k = spec.keys;
    if (this.ahead === undefined) return;
    if (k.first === 0 && k.numkeysAt === undefined && k.afterKeyword === undefined && spec.getKeys === undefined) return;
    const keys = keysOf(spec, argv);
    if (keys === undefined) return;
    let fresh: Buffer[] | undefined;
    for (const key of keys) {
      const id = `${db}:${key.toString('latin1')}`;
      if (this.locked.has(id)) continue;
      this.locked.add(id);
      (fresh ??= []).push(key);
    }
    if (fresh === undefined) return;
    const keysLocked = fresh.length > 1 ? fresh.sort(Buffer.compare) : fresh; // lock order: (db, key)
    this.ahead(kScriptingSql.lock, [int2Array(keysLocked.map(() => db)), encodeBufferArray(keysLocked), int8(Date.now())], (rows) => {
      if (Number(rows?.[0]?.[0] ?? 0) > 0) for (const key of keysLocked) this.placedDbs.push(db), this.placedKeys.push(key);
    });
  }

  /** Before COMMIT: the placeholders this call's script_lock statements made go, as script_end drops KEYS' (not awaited: COMMIT follows it). */
  dropPlaceholders(): void {
    if (this.placedKeys.length === 0) return;
    const s = this.session;
    s.server.store.exec(s, kScriptingSql.end, [int2Array(this.placedDbs), encodeBufferArray(this.placedKeys)], () => null);
    this.placedDbs = [];
    this.placedKeys = [];
  }

  call(argv: Buffer[], resp: 2 | 3, run: ScriptRun): Promise<Buffer> | Buffer {
    const server = this.caller.server;
    const resolved = server.commands.resolve(argv);
    if (resolved instanceof RespError) return resolved.text.startsWith('ERR wrong number') ? kArity : kUnknown;
    const spec = resolved;
    const bits = spec.flagBits;
    if ((bits & kFlagNoScript) !== 0) return kNotAllowed;
    if (!this.caller.user.full) {
      const denied = aclDenied(this.caller, spec, argv, 'lua');
      if (denied !== 0) return errorBytes(scriptAclText(denied));
    }
    if (this.readOnly && (bits & (kFlagWrite | kFlagMayReplicate)) !== 0) return kReadOnly;
    // CLIENT TRACKING: a read tracks the script's declared keys (core/engine/tracking/tracker.ts)
    if ((bits & kFlagReadonly) !== 0 && this.caller.tracking !== undefined) server.tracker.scriptRead(this.caller);
    const s = this.session;
    s.proto = resp;
    const db = s.db;
    const write = (bits & kFlagWrite) !== 0;
    if (write) {
      // a KILL that came first wins: the write is not run and the script ends killed (the addon
      // raises on return), so a KILL's +OK never leaves a write behind
      if (!run.markWritten()) return kKilled;
      if (this.onFirstWrite !== undefined) {
        this.onFirstWrite();
        this.onFirstWrite = undefined;
      }
      if (server.writeHook.beforeActive) server.writeHook.before(db, spec, argv);
    }
    this.lockTouched(db, spec, argv);
    // `new` / `keymiss` / lazy `expired` on: the keys probed inside the script's transaction, just before the call
    const probe = server.writeHook.presence ? probePresence(s, db, spec, argv) : undefined;
    let result: RunResult;
    try {
      // BLMPOP and BZMPOP may be called (no noscript flag): they answer at once, as in MULTI
      result = withoutBlocking(() => spec.run(s, argv), true);
    } catch (e) {
      result = new RespError(`ERR internal error: ${(e as Error).message}`);
    }
    const finish = (reply: Reply): Buffer => {
      // every write is kept while the read cache listens (its second bump comes after the call, whatever the outcome)
      // PFCOUNT (readonly, may_replicate) rewrites its HLL's cached cardinality: the read cache's
      // bump, and CLIENT TRACKING's invalidation (its events function)
      if (probe !== undefined || (write && (server.writeHook.afterActive || (server.writeHook.active && !(reply instanceof RespError))))
        || (!write && (bits & kFlagMayReplicate) !== 0 && (server.writeHook.afterActive || server.writeHook.active))) {
        this.writes.push({ db, spec, argv, reply, note: noteOf(result), probe });
      }
      return this.encode(reply, resp);
    };
    if (result instanceof PendingReply) {
      if (result.done) return finish(result.value);
      return result.then(finish);
    }
    if (isPromise<Reply>(result)) return result.then(finish, (e: Error) => finish(new RespError(`ERR ${e.message}`)));
    return finish(result as Reply);
  }

  /** redis.acl_check_cmd: may the caller's user run this line? (no ACL LOG entry) */
  aclCheck(argv: Buffer[]): Buffer {
    const resolved = this.caller.server.commands.resolve(argv);
    if (resolved instanceof RespError) return kAclInvalid;
    const cmd = this.caller.server.acl.index.of(resolved);
    return cmd === undefined || checkUser(this.caller.user, cmd, argv, this.verdict) === 0 ? kOne : kZero;
  }

  log(level: number, message: Buffer): void {
    // redis.log: warnings and notices go to the worker's log like Redis's server log
    if (level >= 2) process.stderr.write(`postresp script: ${message.toString()}\n`);
  }

  private encode(reply: Reply, resp: 2 | 3): Buffer {
    const w = this.writer;
    w.proto = resp;
    writeReply(w, reply);
    const chunks = w.take();
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  }
}
