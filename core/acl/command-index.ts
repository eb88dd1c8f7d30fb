/**
 * The command table seen by ACL rules: a small integer id per command and subcommand (the bit a
 * selector's bitmap keeps for it), lookup by `name` or `container|sub` as Redis's
 * lookupCommandBySds does, and which commands each category holds. Built once per table.
 */
import type { CommandSpec } from '../engine/commands/spec';
import { kAclCategories } from '../engine/commands/flags';

export interface AclCommand {
  id: number;
  spec: CommandSpec;
  /** the container of a subcommand */
  parent: AclCommand | undefined;
  subs: AclCommand[];
  /** how it names channels (ACL &patterns): 0 none, 1 publish (argv[1]), 2 subscribe (all), 3 patterns (all, compared literally) */
  channels: number;
  /** keys at fixed positions first..last by step (most commands): checked without building a list */
  fixedKeys: boolean;
}

/**
 * What rules read of a command, as plain data: the primary (which never runs or checks a command,
 * and may not import the command table: docs/code-map.md) gets these from a worker and builds its
 * index from them, to parse and describe rules.
 */
export interface AclSpec {
  name: string;
  acl: readonly string[];
  flagBits: number;
  keys: CommandSpec['keys'];
  subcommands?: AclSpec[];
}

export function aclSpecs(specs: Iterable<CommandSpec>): AclSpec[] {
  const out: AclSpec[] = [];
  for (const s of specs) {
    out.push({ name: s.name, acl: [...s.acl], flagBits: s.flagBits, keys: { ...s.keys },
      ...(s.subcommands !== undefined ? { subcommands: aclSpecs(s.subcommands) } : {}) });
  }
  return out;
}

const kChannelUse: Record<string, number> = { publish: 1, spublish: 1, subscribe: 2, ssubscribe: 2, psubscribe: 3 };

export class AclCommandIndex {
  readonly byId: AclCommand[] = [];
  private readonly bySpec = new Map<CommandSpec, AclCommand>();
  private readonly byName = new Map<string, AclCommand>();
  /** top-level commands, in table order (categories walk these, then their subcommands) */
  readonly top: AclCommand[] = [];

  constructor(specs: Iterable<CommandSpec>) {
    for (const spec of specs) this.top.push(this.add(spec, undefined));
  }

  /** The primary's index, from a worker's aclSpecs(): rules parse and describe the same (ids in
   * the same order); its entries lack what only the check reads (getKeys, run), never called there. */
  static fromSpecs(specs: AclSpec[]): AclCommandIndex {
    return new AclCommandIndex(specs as unknown as CommandSpec[]);
  }

  private add(spec: CommandSpec, parent: AclCommand | undefined): AclCommand {
    const k = spec.keys;
    const cmd: AclCommand = {
      id: this.byId.length, spec, parent, subs: [], channels: kChannelUse[spec.name] ?? 0,
      fixedKeys: k.numkeysAt === undefined && k.afterKeyword === undefined,
    };
    this.byId.push(cmd);
    this.bySpec.set(spec, cmd);
    this.byName.set(spec.name, cmd);
    for (const sub of spec.subcommands ?? []) cmd.subs.push(this.add(sub, cmd));
    return cmd;
  }

  /** ids fit in this many bits (a bitmap's length) */
  get size(): number {
    return this.byId.length;
  }

  of(spec: CommandSpec): AclCommand | undefined {
    return this.bySpec.get(spec);
  }

  /** `get`, `config|get` (any case); more than one '|' or an unknown part: undefined */
  lookup(name: string): AclCommand | undefined {
    const lower = name.toLowerCase();
    const parts = lower.split('|');
    if (parts.length > 2) return undefined;
    const base = this.byName.get(parts[0]);
    if (base === undefined || base.parent !== undefined) return undefined;
    if (parts.length === 1) return base;
    if (base.subs.length === 0) return undefined;
    return base.subs.find((s) => s.spec.name === lower);
  }

  /** ids of the commands and subcommands in a category, in Redis's walk order; undefined: no such category */
  category(name: string): AclCommand[] | undefined {
    const lower = name.toLowerCase();
    if (lower !== 'all' && !(kAclCategories as readonly string[]).includes(lower)) return undefined;
    const out: AclCommand[] = [];
    const walk = (list: AclCommand[]): void => {
      for (const c of list) {
        if (lower === 'all' || c.spec.acl.includes(lower)) out.push(c);
        if (c.subs.length > 0) walk(c.subs);
      }
    };
    walk(this.top);
    return out;
  }
}
