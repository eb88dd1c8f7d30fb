/** Shorthand for CommandSpec literals: sensible defaults for keys, flags and ACL categories. */
import { kNoKeys, type CommandSpec } from './spec';

type Partial2 = Omit<CommandSpec, 'keys' | 'flags' | 'acl' | 'since' | 'group'> &
  Partial<Pick<CommandSpec, 'keys' | 'flags' | 'acl' | 'since' | 'group'>>;

export function defineCommand(spec: Partial2): CommandSpec {
  return {
    keys: kNoKeys,
    flags: [],
    acl: [],
    since: '1.0.0',
    group: 'server',
    ...spec,
  };
}
