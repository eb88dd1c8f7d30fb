/**
 * The users of one worker thread (and the primary's copy). Every change is a mutation (SETUSER
 * name rules…, DELUSER names…, LOAD lines…, SYNC to another instance's users) that the primary
 * hands to every worker in one order (workers/state.ts 'acl'), so all workers hold the same users; a new or replaced worker starts from ACL LIST's
 * lines. Connected clients hold their User object: SETUSER changes it in place (Redis applies new
 * rules to connected clients at once); DELUSER closes them.
 */
import type { AclCommandIndex } from './command-index';
import { User } from './user';
import { hasSpaces } from './selector';

export type AclMutation =
  | { op: 'setuser'; name: string; rules: string[] }
  | { op: 'deluser'; names: string[] }
  | { op: 'requirepass'; value: string }
  | { op: 'load'; lines: string[] }
  /**
   * Become the users these lines declare (another instance's change, read from Postgres):
   * users gone close their clients; changed ones take the new rules in place, or with `close`
   * (changes missed while the bus was down: what they were is unknown) close their clients too.
   */
  | { op: 'sync'; lines: string[]; close: boolean };

export class UserRegistry {
  readonly users = new Map<string, User>();

  constructor(readonly index: AclCommandIndex, requirepass = '') {
    this.users.set('default', User.makeDefault(index));
    if (requirepass !== '') this.apply({ op: 'requirepass', value: requirepass });
  }

  get defaultUser(): User {
    return this.users.get('default')!;
  }

  /** Redis's authRequired(): the default user has a password, or is off */
  get defaultNeedsAuth(): boolean {
    const d = this.defaultUser;
    return !d.nopass || !d.enabled;
  }

  /** SETUSER's checks without changing anything: an error text, or undefined */
  validate(m: AclMutation): string | undefined {
    if (m.op === 'setuser') {
      if (hasSpaces(m.name)) return "Usernames can't contain spaces or null characters";
      const r = (this.users.get(m.name) ?? new User(m.name, this.index)).withRules(m.rules);
      return typeof r === 'string' ? r : undefined;
    }
    if (m.op === 'deluser' && m.names.includes('default')) return "The 'default' user cannot be removed";
    if (m.op === 'load' || m.op === 'sync') return parseAclLines(this.index, m.lines).error;
    return undefined;
  }

  /** Applies a validated mutation; returns the users removed or replaced (their clients close). */
  apply(m: AclMutation): User[] {
    switch (m.op) {
      case 'setuser': {
        const old = this.users.get(m.name);
        const r = (old ?? new User(m.name, this.index)).withRules(m.rules);
        if (typeof r === 'string') return [];
        if (old !== undefined) old.copyFrom(r);
        else this.users.set(m.name, r);
        return [];
      }
      case 'deluser': {
        const gone: User[] = [];
        for (const n of m.names) {
          const u = this.users.get(n);
          if (u !== undefined && n !== 'default') { this.users.delete(n); gone.push(u); }
        }
        return gone;
      }
      case 'requirepass': {
        // CONFIG SET requirepass: Redis's `resetpass >pw`, or `nopass` when empty
        const d = this.defaultUser;
        const r = d.withRules(m.value === '' ? ['nopass'] : ['resetpass', `>${m.value}`]);
        if (typeof r !== 'string') d.copyFrom(r);
        return [];
      }
      case 'load': {
        const parsed = parseAclLines(this.index, m.lines);
        if (parsed.users === undefined) return [];
        // Redis keeps the default user's object (its clients stay, with the new rules); every
        // other user is freed with its clients, even one the file declares again
        const d = this.defaultUser;
        const gone = [...this.users.values()].filter((u) => u !== d);
        this.users.clear();
        for (const u of parsed.users) this.users.set(u.name, u);
        d.copyFrom(this.users.get('default') ?? User.makeDefault(this.index));
        this.users.set('default', d);
        return gone;
      }
      case 'sync':
        return this.sync(m.lines, m.close);
    }
  }

  private sync(lines: string[], close: boolean): User[] {
    const parsed = parseAclLines(this.index, lines).users;
    if (parsed === undefined) return [];
    const next = new Map(parsed.map((u) => [u.name, u]));
    if (!next.has('default')) next.set('default', User.makeDefault(this.index));
    const gone: User[] = [];
    for (const [name, u] of this.users) if (!next.has(name)) { this.users.delete(name); gone.push(u); }
    for (const [name, u] of next) {
      const old = this.users.get(name);
      if (old === undefined) this.users.set(name, u);
      else if (old.describe() === u.describe()) continue;
      // the default user is never closed (as ACL LOAD keeps its clients)
      else if (close && name !== 'default') { gone.push(old); this.users.set(name, u); }
      else old.copyFrom(u);
    }
    return gone;
  }

  /** ACL LIST: one line per user, by name */
  list(): string[] {
    return [...this.users.keys()].sort(byBytes).map((n) => `user ${n} ${this.users.get(n)!.describe()}`);
  }
}

export function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'latin1'), Buffer.from(b, 'latin1'));
}

/** An ACL file's lines (`user <name> rules…`), as ACL LOAD and --aclfile read them. */
export function parseAclLines(index: AclCommandIndex, lines: string[]): { users?: User[]; error?: string } {
  const users = new Map<string, User>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#')) continue;
    const words = line.split(/\s+/);
    if (words[0] !== 'user' || words.length < 2) return { error: `/${i + 1}: line should start with user keyword` };
    const name = words[1];
    if (users.has(name)) return { error: `/${i + 1}: Duplicate user '${name}' found` };
    const r = new User(name, index).withRules(words.slice(2));
    if (typeof r === 'string') return { error: `/${i + 1}: ${r.replace(/^Error in ACL SETUSER modifier /, 'Error in user declaration ')}` };
    users.set(name, r);
  }
  return { users: [...users.values()] };
}
