/**
 * An ACL user as Redis 7.0 keeps it: on/off, nopass, sanitize-payload flags, SHA-256 password
 * hashes (lowercase hex, as ACL LIST shows them after `#`), a root selector and `(…)` selectors.
 * Rules apply left to right to a copy: ACL SETUSER changes nothing when one rule fails.
 */
import { createHash } from 'node:crypto';
import type { AclCommandIndex } from './command-index';
import { describeSelector } from './describe';
import { Selector, ruleErrorText, type RuleError } from './selector';

export function hashPassword(pass: Buffer | string): string {
  return createHash('sha256').update(pass).digest('hex');
}

const kHash = /^[0-9a-f]{64}$/;

export class User {
  enabled = false;
  nopass = false;
  /** undefined: neither flag (a user made by SETUSER); Redis's reset sets sanitize-payload */
  sanitize: 'sanitize-payload' | 'skip-sanitize-payload' | undefined = undefined;
  passwords: string[] = [];
  root: Selector;
  selectors: Selector[] = [];
  /** +@all ~* &* with no selector to try: dispatch skips the check (one read per command) */
  full = false;

  constructor(readonly name: string, readonly index: AclCommandIndex) {
    this.root = new Selector(index, true);
  }

  /** Redis's ACLCreateDefaultUser: +@all ~* &* on nopass */
  static makeDefault(index: AclCommandIndex): User {
    const u = new User('default', index);
    for (const op of ['+@all', '~*', '&*', 'on', 'nopass']) u.applyOne(op);
    u.refresh();
    return u;
  }

  clone(name = this.name): User {
    const u = new User(name, this.index);
    u.copyFrom(this);
    return u;
  }

  /** Takes another user's rules in place (connected clients keep this object). */
  copyFrom(o: User): void {
    this.enabled = o.enabled;
    this.nopass = o.nopass;
    this.sanitize = o.sanitize;
    this.passwords = [...o.passwords];
    this.root = o.root.clone();
    this.selectors = o.selectors.map((s) => s.clone());
    this.refresh();
  }

  refresh(): void {
    const r = this.root;
    this.full = r.allCommands && r.allKeys && r.allChannels;
  }

  applyOne(op: string): RuleError | undefined {
    if (op.length === 0) return undefined;
    const lower = op.toLowerCase();
    switch (lower) {
      case 'on': this.enabled = true; return undefined;
      case 'off': this.enabled = false; return undefined;
      case 'skip-sanitize-payload': case 'sanitize-payload': this.sanitize = lower; return undefined;
      case 'nopass': this.nopass = true; this.passwords = []; return undefined;
      case 'resetpass': this.nopass = false; this.passwords = []; return undefined;
      case 'clearselectors': this.selectors = []; return undefined;
      case 'reset':
        for (const o of ['resetpass', 'resetkeys', 'resetchannels', 'off', 'sanitize-payload', 'clearselectors', '-@all']) this.applyOne(o);
        return undefined;
    }
    if (op[0] === '>' || op[0] === '#') {
      const hash = op[0] === '>' ? hashPassword(Buffer.from(op.slice(1), 'latin1')) : op.slice(1);
      if (op[0] === '#' && !kHash.test(hash)) return 'EBADMSG';
      if (!this.passwords.includes(hash)) this.passwords.push(hash);
      this.nopass = false;
      return undefined;
    }
    if (op[0] === '<' || op[0] === '!') {
      const hash = op[0] === '<' ? hashPassword(Buffer.from(op.slice(1), 'latin1')) : op.slice(1);
      if (op[0] === '!' && !kHash.test(hash)) return 'EBADMSG';
      const at = this.passwords.indexOf(hash);
      if (at < 0) return 'ENODEV';
      this.passwords.splice(at, 1);
      return undefined;
    }
    if (op[0] === '(' && op[op.length - 1] === ')') {
      const s = new Selector(this.index, false);
      for (const inner of op.slice(1, -1).split(/\s+/)) {
        if (inner === '') continue;
        const e = s.apply(inner);
        if (e !== undefined) return e;
      }
      this.selectors.push(s);
      return undefined;
    }
    return this.root.apply(op);
  }

  /**
   * Applies rules to a copy (the caller adopts it when this returns a User), or returns Redis's
   * error text. Arguments from `(` to the one ending in `)` form one selector, as Redis merges them.
   */
  withRules(args: readonly string[]): User | string {
    const merged = mergeSelectorArgs(args);
    if (typeof merged === 'string') return merged;
    const u = this.clone();
    for (const op of merged) {
      const e = u.applyOne(op);
      if (e !== undefined) return `Error in ACL SETUSER modifier '${sanitize(op)}': ${ruleErrorText(e)}`;
    }
    u.refresh();
    return u;
  }

  /** flags, passwords and selectors as ACL LIST shows them after `user <name> ` */
  describe(): string {
    const parts: string[] = [...this.flagNames()];
    for (const p of this.passwords) parts.push(`#${p}`);
    parts.push(describeSelector(this.root));
    let out = parts.join(' ');
    for (const s of this.selectors) out += ` (${describeSelector(s)})`;
    return out;
  }

  /** Redis's ACLUserFlags order */
  flagNames(): string[] {
    const out = [this.enabled ? 'on' : 'off'];
    if (this.nopass) out.push('nopass');
    if (this.sanitize === 'skip-sanitize-payload') out.push('skip-sanitize-payload');
    if (this.sanitize === 'sanitize-payload') out.push('sanitize-payload');
    return out;
  }

  /** ACL AUTH's test: enabled, and nopass or one of the hashes */
  accepts(pass: Buffer): boolean {
    if (!this.enabled) return false;
    if (this.nopass) return true;
    return this.passwords.includes(hashPassword(pass));
  }
}

function sanitize(s: string): string {
  return s.replace(/[\r\n]/g, ' ');
}

/** Redis's ACLMergeSelectorArguments */
export function mergeSelectorArgs(args: readonly string[]): string[] | string {
  const out: string[] = [];
  let open: string[] | undefined;
  for (const a of args) {
    if (open !== undefined) {
      open.push(a);
      if (a.endsWith(')')) { out.push(open.join(' ')); open = undefined; }
    } else if (a.startsWith('(') && !a.endsWith(')')) {
      open = [a];
    } else {
      out.push(a);
    }
  }
  if (open !== undefined) return `Unmatched parenthesis in acl selector starting at '${sanitize(open[0])}'.`;
  return out;
}
