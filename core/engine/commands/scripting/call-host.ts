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
 * The reply goes back in the script's RESP version (redis.setresp). A write makes the script
 * unkillable (SCRIPT KILL answers UNKILLABLE), as Redis marks it before running the command. While
 * the write hook listens, each write's (db, command, reply) is kept and reported after COMMIT.
 */
import type { ScriptHost, ScriptRun } from '../../scripting/engine';
import { kScriptCallErrors } from '../../scripting/errors';
import type { KeyStore } from '../../key-store';
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

  constructor(private readonly caller: Session, store: KeyStore, public readOnly: boolean, onFirstWrite?: () => void) {
    this.session = new ScriptSession(caller, store);
    this.onFirstWrite = onFirstWrite;
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
      if (probe !== undefined || (write && (server.writeHook.afterActive || (server.writeHook.active && !(reply instanceof RespError))))) {
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
