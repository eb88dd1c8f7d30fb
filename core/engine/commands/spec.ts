/**
 * Commands are data (STYLE.md): one CommandSpec per command. Arity checks, COMMAND INFO/DOCS/
 * LIST/GETKEYS, ACL categories and batch routing all read this one table.
 */
import type { Reply } from '../reply';
import type { Session } from '../session';
import type { PendingReply } from '../pending-reply';
import type { EventDecl } from '../write-hook';

/** Redis 7.0's command flags (flags.ts: their bits and the order COMMAND INFO prints them). */
export type CommandFlag =
  | 'write' | 'readonly' | 'denyoom' | 'module' | 'admin' | 'pubsub' | 'noscript' | 'blocking'
  | 'loading' | 'stale' | 'skip_monitor' | 'skip_slowlog' | 'asking' | 'fast' | 'no_auth'
  | 'no_mandatory_keys' | 'no_async_loading' | 'no_multi' | 'movablekeys' | 'allow_busy'
  | 'may_replicate' | 'sentinel';

export interface KeySpec {
  /** position of the first key (0 = no keys) */
  first: number;
  /** position of the last key; negative counts from the end (-1 = last argument) */
  last: number;
  step: number;
  /**
   * Where a key count stands when the number of keys is an argument (ZUNIONSTORE dst numkeys
   * key…, LMPOP numkeys key…): Redis's `keynum` key spec, which makes a command `movablekeys`;
   * the counted keys follow it. first/last/step then give only the fixed keys (ZUNIONSTORE's dst).
   */
  numkeysAt?: number;
  /**
   * Keys after a keyword (XREAD … STREAMS key… id…): Redis's `keyword` begin_search, searched from
   * position `from`, with half of what follows it as keys (the ids are the other half).
   */
  afterKeyword?: { word: string; from: number };
}

/** a value now, a PendingReply a lane fills (GET, SET…), or a Promise (commands that await) */
export type RunResult = Reply | PendingReply | Promise<Reply>;

export interface CommandSpec {
  /** lower-case name; subcommands are 'container|sub' */
  name: string;
  /** Redis arity: positive = exactly, negative = at least |arity|; counts the name itself */
  arity: number;
  flags: readonly CommandFlag[];
  /**
   * A write command's keyspace events (Redis's names), reported through the write hook after
   * commit: one name fired on each key when the reply is not an error, or a function of the
   * line and the reply (core/engine/write-hook.ts; ./events.ts and each family's events.ts).
   * Every `write` command declares them (events.test.ts checks the table).
   */
  events?: EventDecl;
  /** the flags as bits (flags.ts), computed once by defineCommand: the per-command checks read these */
  flagBits: number;
  keys: KeySpec;
  /** ACL categories without the '@': the declared ones plus those the flags imply, in Redis's order */
  acl: readonly string[];
  /** Redis's command tips (nondeterministic_output, request_policy:…), as COMMAND INFO prints them */
  tips?: readonly string[];
  group: string;
  summary: string;
  since: string;
  complexity?: string;
  subcommands?: readonly CommandSpec[];
  /**
   * The keys of a command whose keys depend on its options (Redis's getkeys_proc: SORT's and
   * GEORADIUS's STORE key); COMMAND GETKEYS reads it instead of `keys`.
   */
  getKeys?: (argv: Buffer[]) => Buffer[];
  run(session: Session, argv: Buffer[]): RunResult;
}

export const kNoKeys: KeySpec = { first: 0, last: 0, step: 0 };
export const kOneKey: KeySpec = { first: 1, last: 1, step: 1 };
export const kAllKeys: KeySpec = { first: 1, last: -1, step: 1 };
/** `numkeys key…` right after the name (LMPOP, ZMPOP, SINTERCARD, ZUNION…) */
export const kCountedKeys: KeySpec = { first: 0, last: 0, step: 0, numkeysAt: 1 };

/**
 * The keys a command line names, from its spec (COMMAND GETKEYS); undefined when a key count is
 * not a positive integer or counts past the last argument (Redis: "Invalid arguments").
 */
export function keysOf(spec: CommandSpec, argv: Buffer[]): Buffer[] | undefined {
  if (spec.getKeys !== undefined) return spec.getKeys(argv);
  const { first, step, numkeysAt, afterKeyword } = spec.keys;
  const out: Buffer[] = [];
  if (first !== 0) {
    const last = spec.keys.last < 0 ? argv.length + spec.keys.last : spec.keys.last;
    for (let i = first; i <= last && i < argv.length; i += step) out.push(argv[i]);
  }
  if (numkeysAt !== undefined) {
    const text = argv[numkeysAt]?.toString('latin1') ?? '';
    const n = /^[1-9][0-9]{0,9}$/.test(text) ? Number(text) : 0;
    if (n === 0 || numkeysAt + n >= argv.length) return undefined;
    out.push(...argv.slice(numkeysAt + 1, numkeysAt + 1 + n));
  }
  if (afterKeyword !== undefined) {
    const at = argv.findIndex((a, i) => i >= afterKeyword.from && a.toString('latin1').toLowerCase() === afterKeyword.word);
    if (at < 0 || (argv.length - at - 1) % 2 !== 0 || at === argv.length - 1) return undefined;
    out.push(...argv.slice(at + 1, at + 1 + (argv.length - at - 1) / 2));
  }
  return out;
}
