/**
 * The command table: every CommandSpec by lower-case name, plus the central checks that run before
 * any handler (unknown command, unknown subcommand, arity).
 */
import { unknownCommand, unknownSubcommand, wrongArity } from '../resp-errors';
import type { RespError } from '../reply';
import type { CommandSpec } from './spec';

export class CommandTable {
  readonly byName = new Map<string, CommandSpec>();
  /** case-folded FNV-1a hash of the name's bytes → specs: no string is made per lookup
   *  (toString + Map<string> cost ~6% of PING throughput in a CPU profile) */
  private readonly hashed = new Map<number, CommandSpec[]>();
  private lastName: Buffer | undefined = undefined;
  private lastSpec: CommandSpec | undefined = undefined;

  constructor(specs: Iterable<CommandSpec>) {
    for (const spec of specs) {
      if (this.byName.has(spec.name)) throw new Error(`duplicate command ${spec.name}`);
      this.byName.set(spec.name, spec);
      const h = foldHash(Buffer.from(spec.name, 'latin1'));
      const list = this.hashed.get(h);
      if (list) list.push(spec);
      else this.hashed.set(h, [spec]);
    }
  }

  get size(): number {
    return this.byName.size;
  }

  lookup(name: Buffer): CommandSpec | undefined {
    if (name.length > 32) return undefined;
    const list = this.hashed.get(foldHash(name));
    if (list === undefined) return undefined;
    for (const spec of list) if (sameFolded(name, spec.name)) return spec;
    return undefined;
  }

  /** The spec that will run argv (a subcommand for containers), or the error to reply with. */
  resolve(argv: Buffer[]): CommandSpec | RespError {
    // the parser hands a pipeline's repeated name as the same view: resolve it by identity
    const name = argv[0];
    let spec: CommandSpec | undefined;
    if (name === this.lastName) {
      spec = this.lastSpec;
    } else {
      spec = this.lookup(name);
      this.lastName = name;
      this.lastSpec = spec;
    }
    if (spec === undefined) return unknownCommand(argv);
    if (!arityOk(spec.arity, argv.length)) return wrongArity(spec.name);
    // COMMAND alone is a command of its own; other containers need a subcommand (arity -2)
    if (spec.subcommands === undefined || argv.length === 1) return spec;
    const sub = argv[1].toString('latin1').toLowerCase();
    const child = spec.subcommands.find((c) => c.name === `${spec.name}|${sub}`);
    if (child === undefined) return unknownSubcommand(argv[1].toString('latin1'), spec.name);
    if (!arityOk(child.arity, argv.length)) return wrongArity(child.name);
    return child;
  }

  *all(): IterableIterator<CommandSpec> {
    yield* this.byName.values();
  }
}

function foldHash(b: Buffer): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) {
    let c = b[i];
    if (c >= 65 && c <= 90) c += 32;
    h = Math.imul(h ^ c, 0x01000193);
  }
  return h >>> 0;
}

function sameFolded(b: Buffer, lowerName: string): boolean {
  if (b.length !== lowerName.length) return false;
  for (let i = 0; i < b.length; i++) {
    let c = b[i];
    if (c >= 65 && c <= 90) c += 32;
    if (c !== lowerName.charCodeAt(i)) return false;
  }
  return true;
}

export function arityOk(arity: number, argc: number): boolean {
  return arity >= 0 ? argc === arity : argc >= -arity;
}
