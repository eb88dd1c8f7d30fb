/**
 * The primary's copy of the ACL users: the one place mutations are judged and ordered. A worker's
 * ACL SETUSER / DELUSER / LOAD asks here ('acl'); an accepted mutation goes to every worker in
 * this order, so every worker holds the same users; a new or restarted worker starts from ACL
 * LIST's lines. `--aclfile` is read at start and by ACL LOAD, written by ACL SAVE (Redis's format:
 * one `user <name> <rules>` line per user).
 */
import { promises as fs } from 'node:fs';
import { allCommands } from '../engine/commands/index';
import { AclCommandIndex } from '../acl/command-index';
import { UserRegistry, type AclMutation } from '../acl/registry';
import type { Config } from '../config/config';

export class AclHost {
  readonly registry: UserRegistry;

  constructor(private readonly config: Config) {
    this.registry = new UserRegistry(new AclCommandIndex(allCommands()), config.str('requirepass'));
  }

  /** --aclfile at start: an error stops the server, as Redis refuses to start */
  async loadFile(): Promise<void> {
    const file = this.config.str('aclfile');
    if (file === '') return;
    const lines = await this.readLines(file);
    const err = this.registry.validate({ op: 'load', lines });
    if (err !== undefined) throw new Error(`Error loading ACL file ${file}: ${err}`);
    this.registry.apply({ op: 'load', lines });
  }

  private async readLines(file: string): Promise<string[]> {
    return (await fs.readFile(file, 'latin1')).split('\n');
  }

  /**
   * A worker's request: the mutation to broadcast, or Redis's error text. `load` / `save` name
   * the file operations; the others are mutations as they are.
   */
  async request(m: AclMutation | { op: 'loadfile' } | { op: 'save' }): Promise<{ error?: string; mutation?: AclMutation }> {
    if (m.op === 'save') {
      const file = this.config.str('aclfile');
      if (file === '') return { error: 'This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.' };
      const tmp = `${file}.tmp-${process.pid}`;
      try {
        await fs.writeFile(tmp, this.registry.list().map((l) => `${l}\n`).join(''), 'latin1');
        await fs.rename(tmp, file);
      } catch (e) {
        return { error: `There was an error trying to save the ACLs. Please check the server logs for more information` };
      }
      return {};
    }
    let mutation: AclMutation;
    if (m.op === 'loadfile') {
      const file = this.config.str('aclfile');
      if (file === '') return { error: 'This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.' };
      let lines: string[];
      try {
        lines = await this.readLines(file);
      } catch (e) {
        return { error: `Error loading ACLs, opening file '${file}': ${(e as Error).message}` };
      }
      mutation = { op: 'load', lines };
    } else {
      mutation = m;
    }
    const err = this.registry.validate(mutation);
    if (err !== undefined) return { error: mutation.op === 'load' ? `Error in ACL LOAD: ${err}` : err };
    this.registry.apply(mutation);
    return { mutation };
  }
}
