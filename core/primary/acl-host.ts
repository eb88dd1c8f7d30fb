/**
 * The primary's copy of the ACL users: the one place this instance's mutations are judged and
 * ordered, and where other instances' changes arrive. The users live in Postgres (acl-store.ts),
 * so every instance on the schema enforces the same ones; each instance keeps them in memory
 * (here and in every worker: workers/state.ts 'acl') and follows the table's version:
 *
 *   worker: ACL SETUSER/DELUSER/LOAD, CONFIG SET requirepass ─▶ request ─┐
 *   bus: U<version> from another instance ─▶ follow ─────────────────────┤ one at a time
 *   bus reconnected (changes may be lost) ─▶ follow ─────────────────────┘
 *
 * - request: read the table (catching up first if another instance moved it), judge the mutation
 *   against those users, write the result if the version did not move meanwhile (else again),
 *   then apply the mutation here and in every worker, before the reply.
 * - follow: read the table; one version ahead: apply it as the op that made it (SETUSER changes
 *   users in place, DELUSER closes the deleted users' clients, LOAD every non-default user's, as
 *   Redis does); further ahead (missed while the bus was down): become the table's users,
 *   closing the clients of every user deleted or changed.
 * - start: the table's users; then `--aclfile`, if given, replaces them (as ACL LOAD: nothing is
 *   written when the file says what the table holds, so instances started with one file do not
 *   close each other's clients); else `--requirepass`, if given, sets the default user's password.
 * - ACL SAVE writes this instance's file from the shared users; ACL LOAD makes the file's users
 *   everyone's. The file is an import/export of the table, which is the truth.
 *
 * The command table is not imported here (docs/code-map.md's import rule): a worker sends what
 * rules read of it (AclSpec), and the index is built from that.
 */
import { promises as fs } from 'node:fs';
import { AclCommandIndex, type AclSpec } from '../acl/command-index';
import { UserRegistry, type AclMutation } from '../acl/registry';
import type { Config } from '../config/config';
import type { AclState, AclStore } from './acl-store';

const kNoFile = 'This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.';
/** a change that lost the version race this many times in a row gives up (never seen: two
 * instances' changes alternate, each retry reads the other's) */
const kMaxAttempts = 20;

export type AclRequest = AclMutation | { op: 'loadfile' } | { op: 'save' };

export interface AclHostOptions {
  /** hands a mutation to every worker; resolves once all applied it */
  broadcast(m: AclMutation): Promise<void>;
  log(line: string): void;
  /** the shared table; undefined: users of this instance alone (as before v10) */
  store?: AclStore;
}

export class AclHost {
  registry!: UserRegistry;
  /** the table version the users here reflect; -1 before the first read */
  private version = -1;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly config: Config, private readonly opts: AclHostOptions) {}

  /** The users before the first client: the table's, then --aclfile or --requirepass. Throws
   * (the server does not start) on a bad file or when Postgres cannot be read. */
  start(specs: AclSpec[]): Promise<void> {
    return this.serial(() => this.load(specs));
  }

  private async load(specs: AclSpec[]): Promise<void> {
    const store = this.opts.store;
    this.registry = new UserRegistry(AclCommandIndex.fromSpecs(specs), store === undefined ? this.config.str('requirepass') : '');
    if (store !== undefined) await this.adopt(await store.read());
    const file = this.config.str('aclfile');
    let startup: AclMutation | undefined;
    if (file !== '') {
      const lines = await this.readLines(file);
      const err = this.registry.validate({ op: 'load', lines });
      if (err !== undefined) throw new Error(`Error loading ACL file ${file}: ${err}`);
      startup = { op: 'load', lines };
    } else if (store !== undefined && this.config.str('requirepass') !== '') {
      startup = { op: 'requirepass', value: this.config.str('requirepass') };
    }
    if (startup === undefined) return;
    if (store === undefined) { this.registry.apply(startup); return; }
    if (this.after(startup).join('\n') === this.registry.list().join('\n')) return;
    const r = await this.commit(startup);
    if (r.error !== undefined) throw new Error(`could not store the ACL users in Postgres: ${r.error}`);
  }

  /** Another instance committed version (undefined: the bus reconnected, changes may be lost). */
  follow(version: number | undefined): void {
    void this.serial(async () => {
      if (this.opts.store === undefined || (version !== undefined && version <= this.version)) return;
      await this.adopt(await this.opts.store.read());
    }).catch((e: Error) => this.opts.log(`acl: could not read the users from Postgres: ${e.message}; they are read again when the bus reconnects`));
  }

  /** A worker's request: Redis's error text, or nothing (done everywhere here). */
  request(m: AclRequest): Promise<{ error?: string }> {
    return this.serial(() => this.handle(m));
  }

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const next = this.chain.then(f, f);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async handle(m: AclRequest): Promise<{ error?: string }> {
    const file = this.config.str('aclfile');
    if (m.op === 'save') {
      if (file === '') return { error: kNoFile };
      const tmp = `${file}.tmp-${process.pid}`;
      try {
        await fs.writeFile(tmp, this.registry.list().map((l) => `${l}\n`).join(''), 'latin1');
        await fs.rename(tmp, file);
      } catch {
        return { error: 'There was an error trying to save the ACLs. Please check the server logs for more information' };
      }
      return {};
    }
    if (m.op !== 'loadfile') return this.commit(m);
    if (file === '') return { error: kNoFile };
    let lines: string[];
    try {
      lines = await this.readLines(file);
    } catch (e) {
      return { error: `Error loading ACLs, opening file '${file}': ${(e as Error).message}` };
    }
    return this.commit({ op: 'load', lines });
  }

  /** Judges m against the table's users, stores the result, applies it here and in the workers. */
  private async commit(m: AclMutation): Promise<{ error?: string }> {
    const store = this.opts.store;
    for (let attempt = 0; attempt < kMaxAttempts; attempt++) {
      let state: AclState | undefined;
      if (store !== undefined) {
        try {
          state = await store.read();
        } catch (e) {
          return { error: this.unreachable(e as Error) };
        }
        await this.adopt(state);
      }
      const err = this.registry.validate(m);
      if (err !== undefined) return { error: m.op === 'load' ? `Error in ACL LOAD: ${err}` : err };
      if (store !== undefined) {
        let written: boolean;
        try {
          written = await store.write(state!.version, m.op, this.after(m));
        } catch (e) {
          return { error: this.unreachable(e as Error) };
        }
        if (!written) continue;
        this.version = state!.version + 1;
      }
      this.registry.apply(m);
      await this.opts.broadcast(m);
      return {};
    }
    return { error: 'ERR the ACL users kept changing on other instances: try again' };
  }

  private unreachable(e: Error): string {
    return `ERR the ACL users are kept in Postgres, which could not be reached: ${e.message.replace(/\s+/g, ' ')}`;
  }

  /** The users' lines once m is applied, without changing them. */
  private after(m: AclMutation): string[] {
    const r = new UserRegistry(this.registry.index);
    r.apply({ op: 'load', lines: this.registry.list() });
    r.apply(m);
    return r.list();
  }

  /** Becomes the table's users (see the top of the file for which clients close). */
  private async adopt(state: AclState): Promise<void> {
    if (state.version === this.version) return;
    const next = this.version >= 0 && state.version === this.version + 1;
    const m: AclMutation = next && state.op === 'load' ? { op: 'load', lines: state.lines } : { op: 'sync', lines: state.lines, close: !next };
    const err = this.registry.validate(m);
    this.version = state.version;
    if (err !== undefined) {
      // another version's rules this one cannot read (a command it does not have): keep ours
      this.opts.log(`acl: the users in Postgres (version ${state.version}) do not load here: ${err}; this instance keeps its users`);
      return;
    }
    this.registry.apply(m);
    await this.opts.broadcast(m);
  }

  private async readLines(file: string): Promise<string[]> {
    return (await fs.readFile(file, 'latin1')).split('\n');
  }
}
