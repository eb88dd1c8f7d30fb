/**
 * Shorthand for CommandSpec literals: sensible defaults for keys, flags and ACL categories, and
 * what Redis derives from a command's declaration: `movablekeys` from a key count argument, the
 * flag bits, and the ACL categories the flags imply (so `acl` may list only the family, e.g.
 * ['string'], as Redis's command JSON does).
 */
import { aclCategories, flagBits } from './flags';
import { kNoKeys, type CommandFlag, type CommandSpec } from './spec';

type Partial2 = Omit<CommandSpec, 'keys' | 'flags' | 'flagBits' | 'acl' | 'since' | 'group'> &
  Partial<Pick<CommandSpec, 'keys' | 'flags' | 'acl' | 'since' | 'group'>>;

export function defineCommand(spec: Partial2): CommandSpec {
  const keys = spec.keys ?? kNoKeys;
  const flags: readonly CommandFlag[] = keys.numkeysAt === undefined || spec.flags?.includes('movablekeys')
    ? spec.flags ?? [] : [...spec.flags ?? [], 'movablekeys'];
  // every field in one order: specs share one hidden class, so the client's spec.run / spec.name stay monomorphic
  return {
    name: spec.name, arity: spec.arity, flags, events: spec.events, flagBits: flagBits(flags), keys, acl: aclCategories(spec.acl ?? [], flags),
    tips: spec.tips, group: spec.group ?? 'server', summary: spec.summary, since: spec.since ?? '1.0.0',
    complexity: spec.complexity, subcommands: spec.subcommands, getKeys: spec.getKeys, run: spec.run,
  };
}
