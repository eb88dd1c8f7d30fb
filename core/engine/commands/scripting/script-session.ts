/**
 * The client a script's redis.call commands run as (Redis's script caller client): the caller's
 * identity and db, the script's RESP version, and a server whose `store` is the call's
 * transaction. SELECT inside the script changes only this session's db, as in Redis 7.
 */
import type { KeyStore } from '../../key-store';
import type { User } from '../../../acl/user';
import type { QueuedCommand, ServerContext, Session, WatchedKey } from '../../session';

export class ScriptSession implements Session {
  readonly server: ServerContext;
  db: number;
  proto: 2 | 3 = 2;
  authenticated = true;
  replyOff = false;
  skipNext = false;
  multi: QueuedCommand[] | undefined = undefined;
  multiAborted = false;
  watched: WatchedKey[] = [];
  /** never set: blocking commands answer at once inside a script (blocking/context.ts) */
  blocked = undefined;

  constructor(private readonly caller: Session, store: KeyStore) {
    // everything of the worker's context but the store: a prototype link keeps it in step with
    // whatever ServerContext holds, without a wrapper to maintain
    this.server = Object.create(caller.server, { store: { value: store } }) as ServerContext;
    this.db = caller.db;
  }

  get id(): number { return this.caller.id; }
  get local(): boolean { return this.caller.local; }
  get isClosed(): boolean { return this.caller.isClosed; }
  get name(): string { return this.caller.name; }
  set name(v: string) { this.caller.name = v; }
  get libName(): string { return this.caller.libName; }
  set libName(v: string) { this.caller.libName = v; }
  get libVer(): string { return this.caller.libVer; }
  set libVer(v: string) { this.caller.libVer = v; }
  get user(): User { return this.caller.user; }
  set user(v: User) { this.caller.user = v; }
  get noEvict(): boolean { return this.caller.noEvict; }
  set noEvict(v: boolean) { this.caller.noEvict = v; }
  get noTouch(): boolean { return this.caller.noTouch; }
  set noTouch(v: boolean) { this.caller.noTouch = v; }

  closeAfterReply(): void {}
  describe(): string { return this.caller.describe(); }
  reset(): undefined { return undefined; }
}
