/**
 * The Lua scripting engine's JS API (Redis 7.0 EVAL/FUNCTION semantics; design in
 * docs/scripting.md). Scripts run on native threads, never on this event loop; each
 * redis.call comes back here as `host.call(argv, resp, run)` and the script waits for the
 * reply bytes. Results are RESP reply bytes for the calling client's protocol.
 *
 *   const engine = scriptEngine();
 *   const reply = await engine.run({ body, keys, args, proto: 2 }, host);
 *
 * The engine owns no persistence: the command layer stores scripts and libraries (Postgres)
 * and feeds them back with loadScript()/loadLibrary() on every instance.
 */
import { kRedisVersion } from '../../version';
import { loadLuaAddon, LuaAddon } from './native-lua';
import { flagNames, kKillReplies, type KillResult, ScriptFlag } from './errors';

/** What a running script can ask of the server. */
export interface ScriptHost {
  /** Runs one command for redis.call/pcall; returns its reply in RESP `resp` (the script's
   *  redis.setresp, 2 by default). Command errors are replies ("-ERR …"), not rejections. Must
   *  use the script-context texts for unknown commands and arity (errors.ts kScriptCallErrors). */
  call(argv: Buffer[], resp: 2 | 3, run: ScriptRun): Promise<Buffer> | Buffer;
  /** redis.acl_check_cmd: ":1" / ":0", or an error reply; allowed when absent. */
  aclCheck?(argv: Buffer[], run: ScriptRun): Promise<Buffer> | Buffer;
  /** redis.log lines: level 0 debug, 1 verbose, 2 notice, 3 warning. */
  log?(level: number, message: Buffer): void;
}

/** Handle of one script call, given to the host with each command. */
export interface ScriptRun {
  readonly kind: 'script' | 'function';
  /** The host is about to run a write command: SCRIPT/FUNCTION KILL now answer UNKILLABLE, as in
   *  Redis. false: a KILL came first; the command must not run (the script ends killed). */
  markWritten(): boolean;
}

export interface EvalOptions {
  /** Script body (EVAL); its sha is computed and the body kept for later EVALSHA. */
  body?: Buffer | string;
  /** EVALSHA: the body must be known to the engine (loadScript/earlier EVAL), else NOSCRIPT. */
  sha?: string;
  keys?: (Buffer | string)[];
  args?: (Buffer | string)[];
  /** The calling client's protocol. */
  proto?: 2 | 3;
}

export interface FcallOptions {
  fn: string;
  keys?: (Buffer | string)[];
  args?: (Buffer | string)[];
  proto?: 2 | 3;
}

export interface LibraryInfo {
  name: string;
  code: Buffer;
  functions: { name: string; description: string | null; flags: ScriptFlag[] }[];
}

export interface EngineOptions {
  /** Native threads running scripts, process-wide (default 8). A script waiting on a command
   *  holds its thread, so this bounds concurrent scripts per process, not CPU use. */
  threads?: number;
  /** Bytes one Lua state may hold (default 64 MiB); past it the script fails with
   *  "ERR Error running script <sha>, not enough memory". */
  memoryLimit?: number;
}

const enum RunKind { Eval = 0, Fcall = 1, LoadLibrary = 2 }
const enum Msg { Done = 0, Call = 1, Log = 2, Acl = 3 }

interface Pending {
  resolve(reply: Buffer): void;
  host: ScriptHost | null;
  handle: object;
  run: ScriptRun;
}

const kHostFailed = Buffer.from('-ERR the host failed to run the command\r\n');
const kAclAllowed = Buffer.from(':1\r\n');

export class ScriptEngine {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly addon: LuaAddon) {
    addon.init((kind, id, a, b) => this.dispatch(kind, id, a, b));
  }

  /** EVAL / EVALSHA. Resolves with the reply bytes (errors are "-…" replies). */
  eval(opts: EvalOptions, host: ScriptHost): Promise<Buffer> {
    const body = opts.body === undefined ? null : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body);
    const argv = [...(opts.keys ?? []), ...(opts.args ?? [])];
    return this.start(RunKind.Eval, 'script', opts.sha ?? null, body, argv, opts.keys?.length ?? 0, opts.proto ?? 2, false, host);
  }

  /** FCALL: the function must have been registered by loadLibrary (else "ERR Function not found"). */
  fcall(opts: FcallOptions, host: ScriptHost): Promise<Buffer> {
    const argv = [...(opts.keys ?? []), ...(opts.args ?? [])];
    return this.start(RunKind.Fcall, 'function', opts.fn, null, argv, opts.keys?.length ?? 0, opts.proto ?? 2, false, host);
  }

  /** FUNCTION LOAD [REPLACE]: runs the library (500 ms limit) and installs what it registers.
   *  Resolves with "$<name>" bulk bytes or an error reply in Redis's words. */
  loadLibrary(code: Buffer | string, replace = false): Promise<Buffer> {
    const body = Buffer.isBuffer(code) ? code : Buffer.from(code);
    return this.start(RunKind.LoadLibrary, 'function', null, body, [], 0, 2, replace, null);
  }

  /** SCRIPT LOAD: compiles and keeps the body. `error` is Redis's text without the '-'. */
  loadScript(body: Buffer | string): { sha: string; flags: ScriptFlag[] } | { error: string } {
    const r = this.addon.scriptLoad(body);
    return 'error' in r ? r : { sha: r.sha, flags: flagNames(r.flags) };
  }

  /** Shebang flags of a known script, or null (unknown sha). `evalCompat` when it has none. */
  scriptFlags(sha: string): ScriptFlag[] | null {
    const f = this.addon.scriptFlags(sha);
    return f < 0 ? null : flagNames(f);
  }

  scriptExists(sha: string): boolean {
    return this.addon.scriptFlags(sha) >= 0;
  }

  /** SCRIPT FLUSH: forgets every body; pool threads start fresh Lua states. */
  flushScripts(): void {
    this.addon.scriptFlush();
  }

  functionFlags(name: string): ScriptFlag[] | null {
    const f = this.addon.functionFlags(name);
    return f < 0 ? null : flagNames(f);
  }

  deleteLibrary(name: string): boolean {
    return this.addon.functionDelete(name);
  }

  flushLibraries(): void {
    this.addon.functionFlush();
  }

  listLibraries(): LibraryInfo[] {
    return this.addon.functionList().map((l) => ({
      name: l.name, code: l.code,
      functions: l.functions.map((f) => ({ name: f.name, description: f.description, flags: flagNames(f.flags) })),
    }));
  }

  /** SCRIPT KILL (`script`) / FUNCTION KILL (`function`) from any worker thread: the reply bytes. */
  kill(kind: 'script' | 'function'): Buffer {
    return kKillReplies[kind][this.killLocal(kind)];
  }

  /** Stops this process's killable calls of kind; what it found. */
  killLocal(kind: 'script' | 'function'): KillResult {
    return this.addon.kill(kind === 'function') as KillResult;
  }

  running(): { kind: 'script' | 'function'; name: string; ms: number; written: boolean }[] {
    return this.addon.running();
  }

  /** busy-reply-threshold for a call that has to wait (its thread's script connections all
   *  held): the kind of the oldest call past thresholdMs among this thread's running calls, and
   *  the process's when every engine thread is taken; undefined when none is (it may wait). */
  busy(thresholdMs: number): 'script' | 'function' | undefined {
    const k = this.addon.busy(thresholdMs);
    return k === 0 ? undefined : k === 2 ? 'function' : 'script';
  }

  /** The Postgres library version the process's library store holds (-1: unknown). */
  libraryVersion(): number {
    return this.addon.libraryVersion();
  }

  /** Takes the process-wide right to change the library store (false: another thread has it). */
  librarySyncBegin(): boolean {
    return this.addon.librarySync(true);
  }

  /** Gives it back; the store now holds `version` (-1: unknown, reload on next use). */
  librarySyncEnd(version: number): void {
    this.addon.librarySync(false, version);
  }

  sha1hex(data: Buffer | string): string {
    return this.addon.sha1hex(data);
  }

  stats(): { threads: number; idle: number; queued: number; memoryLimit: number; pending: number } {
    return { ...this.addon.stats(), pending: this.pending.size };
  }

  private start(kind: RunKind, label: 'script' | 'function', name: string | null, body: Buffer | null,
    argv: (Buffer | string)[], nkeys: number, proto: number, replace: boolean, host: ScriptHost | null): Promise<Buffer> {
    const id = this.nextId;
    this.nextId = this.nextId >= 0xffffffff ? 1 : this.nextId + 1;
    return new Promise<Buffer>((resolve) => {
      const handle = this.addon.run(kind, id, name, body, argv, nkeys, proto, replace);
      const addon = this.addon;
      const run: ScriptRun = { kind: label, markWritten: () => addon.markWritten(handle) };
      this.pending.set(id, { resolve, host, handle, run });
    });
  }

  private dispatch(kind: number, id: number, a: unknown, b: unknown): void {
    const p = this.pending.get(id);
    if (!p) return;
    switch (kind) {
      case Msg.Done:
        this.pending.delete(id);
        p.resolve(a as Buffer);
        return;
      case Msg.Call:
        this.answer(p, () => p.host!.call(a as Buffer[], b as 2 | 3, p.run));
        return;
      case Msg.Acl:
        this.answer(p, () => (p.host?.aclCheck ? p.host.aclCheck(a as Buffer[], p.run) : kAclAllowed));
        return;
      case Msg.Log:
        p.host?.log?.(a as number, b as Buffer);
        return;
    }
  }

  private answer(p: Pending, ask: () => Promise<Buffer> | Buffer): void {
    let r: Promise<Buffer> | Buffer;
    try {
      r = ask();
    } catch {
      this.addon.reply(p.handle, kHostFailed);
      return;
    }
    if (Buffer.isBuffer(r)) this.addon.reply(p.handle, r);
    else r.then((buf) => this.addon.reply(p.handle, buf), () => this.addon.reply(p.handle, kHostFailed));
  }
}

let engine: ScriptEngine | undefined;

/** The engine of this thread (one per worker; pool and stores are shared by the process). The
 *  first call in the process may set threads/memoryLimit; later ones cannot change them. */
export function scriptEngine(opts: EngineOptions = {}): ScriptEngine {
  if (engine) return engine;
  const addon = loadLuaAddon();
  addon.configure(opts.threads ?? 0, opts.memoryLimit ?? 0, kRedisVersion);
  engine = new ScriptEngine(addon);
  return engine;
}
