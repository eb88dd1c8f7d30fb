/**
 * One ACL selector as Redis 7.0 keeps it: which commands (a byte per command id, computed once
 * when the rules change, so the per-command check is one indexed read), which first arguments of
 * otherwise denied commands (`+select|0`), key patterns with their R/W flags, channel patterns.
 * A user has a root selector and any number of `(…)` selectors (user.ts).
 */
import type { AclCommand, AclCommandIndex } from './command-index';

export const kKeyRead = 1;
export const kKeyWrite = 2;
export const kKeyAll = 3;

export interface KeyPattern {
  text: string;
  buf: Buffer;
  flags: number;
  /** `prefix*` with no other glob character: a byte compare instead of the glob (compiled once) */
  prefix: Buffer | undefined;
}

/** `app:*` → `app:`; undefined when the pattern needs the full glob */
export function literalPrefix(buf: Buffer): Buffer | undefined {
  const n = buf.length;
  if (n === 0 || buf[n - 1] !== 42 /* * */) return undefined;
  for (let i = 0; i < n - 1; i++) {
    const c = buf[i];
    if (c === 42 /* * */ || c === 63 /* ? */ || c === 91 /* [ */ || c === 92 /* \ */) return undefined;
  }
  return buf.subarray(0, n - 1);
}

/** Why a rule was refused: Redis's errno, turned into its message by ruleErrorText. */
export type RuleError = 'ENOENT' | 'EINVAL' | 'EEXIST' | 'EISDIR' | 'ENODEV' | 'EBADMSG' | 'ECHILD';

export class Selector {
  /** 1 = allowed, by command id */
  allowed: Uint8Array;
  /** Redis's reserved "future commands" bit: set by +@all only, so ACL LIST starts with +@all */
  future = false;
  /** SELECTOR_FLAG_ALLCOMMANDS: no bit to test (cleared by any denial) */
  allCommands = false;
  firstArgs: Map<number, string[]> | undefined = undefined;
  patterns: KeyPattern[] = [];
  allKeys = false;
  channels: { text: string; buf: Buffer }[] = [];
  allChannels = false;

  constructor(readonly index: AclCommandIndex, readonly root: boolean) {
    this.allowed = new Uint8Array(index.size);
  }

  clone(): Selector {
    const s = new Selector(this.index, this.root);
    s.allowed = this.allowed.slice();
    s.future = this.future;
    s.allCommands = this.allCommands;
    s.firstArgs = this.firstArgs === undefined ? undefined : new Map([...this.firstArgs].map(([k, v]) => [k, [...v]]));
    s.patterns = this.patterns.map((p) => ({ ...p }));
    s.allKeys = this.allKeys;
    s.channels = [...this.channels];
    s.allChannels = this.allChannels;
    return s;
  }

  private setBit(id: number, allow: boolean): void {
    this.allowed[id] = allow ? 1 : 0;
    if (!allow) this.allCommands = false;
  }

  /** Redis's ACLChangeSelectorPerm: a container's subcommands follow it */
  changePerm(cmd: AclCommand, allow: boolean): void {
    this.setBit(cmd.id, allow);
    this.firstArgs?.delete(cmd.id);
    for (const sub of cmd.subs) this.setBit(sub.id, allow);
  }

  /** Applies one rule; undefined when accepted. */
  apply(op: string): RuleError | undefined {
    const lower = op.toLowerCase();
    if (lower === 'allkeys' || op === '~*') {
      this.allKeys = true;
      this.patterns = [];
    } else if (lower === 'resetkeys') {
      this.allKeys = false;
      this.patterns = [];
    } else if (lower === 'allchannels' || op === '&*') {
      this.allChannels = true;
      this.channels = [];
    } else if (lower === 'resetchannels') {
      this.allChannels = false;
      this.channels = [];
    } else if (lower === 'allcommands' || lower === '+@all') {
      this.allowed.fill(1);
      this.future = true;
      this.allCommands = true;
      this.firstArgs = undefined;
    } else if (lower === 'nocommands' || lower === '-@all') {
      this.allowed.fill(0);
      this.future = false;
      this.allCommands = false;
      this.firstArgs = undefined;
    } else if (op[0] === '~' || op[0] === '%') {
      return this.addKeyPattern(op);
    } else if (op[0] === '&') {
      if (this.allChannels) return 'EISDIR';
      const text = op.slice(1);
      if (hasSpaces(text)) return 'EINVAL';
      if (!this.channels.some((c) => c.text === text)) this.channels.push({ text, buf: Buffer.from(text, 'latin1') });
      this.allChannels = false;
    } else if (op[0] === '+' && op[1] !== '@') {
      return this.allowCommand(op.slice(1));
    } else if (op[0] === '-' && op[1] !== '@') {
      const cmd = this.index.lookup(op.slice(1));
      if (cmd === undefined) return 'ENOENT';
      this.changePerm(cmd, false);
    } else if ((op[0] === '+' || op[0] === '-') && op[1] === '@') {
      const members = this.index.category(op.slice(2));
      if (members === undefined) return 'ENOENT';
      for (const c of members) this.changePerm(c, op[0] === '+');
    } else {
      return 'EINVAL';
    }
    return undefined;
  }

  private addKeyPattern(op: string): RuleError | undefined {
    if (this.allKeys) return 'EEXIST';
    let flags = 0;
    let offset = 1;
    if (op[0] === '%') {
      for (; offset < op.length; offset++) {
        const ch = op[offset].toUpperCase();
        if (ch === 'R' && (flags & kKeyRead) === 0) flags |= kKeyRead;
        else if (ch === 'W' && (flags & kKeyWrite) === 0) flags |= kKeyWrite;
        else if (op[offset] === '~') { offset++; break; }
        else return 'EINVAL';
      }
      if (flags === 0) return 'EINVAL';
    } else {
      flags = kKeyAll;
    }
    const text = op.slice(offset);
    if (hasSpaces(text)) return 'EINVAL';
    const same = this.patterns.find((p) => p.text === text);
    const buf = Buffer.from(text, 'latin1');
    if (same === undefined) this.patterns.push({ text, buf, flags, prefix: literalPrefix(buf) });
    else same.flags |= flags;
    this.allKeys = false;
    return undefined;
  }

  /** +cmd, +container|sub, +cmd|firstarg (Redis's deprecated first-arg form) */
  private allowCommand(name: string): RuleError | undefined {
    const bar = name.lastIndexOf('|');
    if (bar < 0) {
      const cmd = this.index.lookup(name);
      if (cmd === undefined) return 'ENOENT';
      this.changePerm(cmd, true);
      return undefined;
    }
    const cmd = this.index.lookup(name.slice(0, bar));
    if (cmd === undefined) return 'ENOENT';
    if (cmd.parent !== undefined) return 'ECHILD';
    const sub = name.slice(bar + 1);
    if (sub.length === 0) return 'EINVAL';
    if (cmd.subs.length > 0) {
      const child = this.index.lookup(name);
      if (child === undefined) return 'ENOENT';
      this.changePerm(child, true);
      return undefined;
    }
    this.firstArgs ??= new Map();
    const list = this.firstArgs.get(cmd.id) ?? [];
    if (!list.some((a) => a.toLowerCase() === sub.toLowerCase())) list.push(sub);
    this.firstArgs.set(cmd.id, list);
    return undefined;
  }
}

/** Redis's ACLStringHasSpaces: whitespace or NUL in a pattern or user name */
export function hasSpaces(s: string): boolean {
  return /[\s\0]/.test(s);
}

export function ruleErrorText(e: RuleError): string {
  switch (e) {
    case 'ENOENT': return 'Unknown command or category name in ACL';
    case 'EINVAL': return 'Syntax error';
    case 'EEXIST': return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns";
    case 'EISDIR': return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels";
    case 'ENODEV': return 'The password you are trying to remove from the user does not exist';
    case 'EBADMSG': return 'The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters';
    case 'ECHILD': return 'Allowing first-arg of a subcommand is not supported';
  }
}
