/**
 * Commands are data (STYLE.md): one CommandSpec per command. Arity checks, COMMAND INFO/DOCS/
 * LIST/GETKEYS, ACL categories and batch routing all read this one table.
 */
import type { Reply } from '../reply';
import type { Session } from '../session';
import type { PendingReply } from '../pending-reply';

export type CommandFlag =
  | 'write' | 'readonly' | 'denyoom' | 'admin' | 'pubsub' | 'noscript' | 'blocking'
  | 'loading' | 'stale' | 'skip_monitor' | 'skip_slowlog' | 'fast' | 'no_auth'
  | 'may_replicate' | 'no_mandatory_keys' | 'no_multi' | 'allow_busy' | 'sentinel';

export interface KeySpec {
  /** position of the first key (0 = no keys) */
  first: number;
  /** position of the last key; negative counts from the end (-1 = last argument) */
  last: number;
  step: number;
}

/** a value now, a PendingReply a lane fills (GET, SET…), or a Promise (commands that await) */
export type RunResult = Reply | PendingReply | Promise<Reply>;

export interface CommandSpec {
  /** lower-case name; subcommands are 'container|sub' */
  name: string;
  /** Redis arity: positive = exactly, negative = at least |arity|; counts the name itself */
  arity: number;
  flags: readonly CommandFlag[];
  keys: KeySpec;
  /** ACL categories without the '@' */
  acl: readonly string[];
  group: string;
  summary: string;
  since: string;
  complexity?: string;
  subcommands?: readonly CommandSpec[];
  run(session: Session, argv: Buffer[]): RunResult;
}

export const kNoKeys: KeySpec = { first: 0, last: 0, step: 0 };
export const kOneKey: KeySpec = { first: 1, last: 1, step: 1 };
export const kAllKeys: KeySpec = { first: 1, last: -1, step: 1 };

/** The keys a command line names, from its spec (COMMAND GETKEYS, lane pinning, WATCH). */
export function keysOf(spec: CommandSpec, argv: Buffer[]): Buffer[] {
  const { first, step } = spec.keys;
  if (first === 0) return [];
  const last = spec.keys.last < 0 ? argv.length + spec.keys.last : spec.keys.last;
  const out: Buffer[] = [];
  for (let i = first; i <= last && i < argv.length; i += step) out.push(argv[i]);
  return out;
}
