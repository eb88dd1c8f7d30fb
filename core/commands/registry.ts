/**
 * The command table: every CommandSpec by lower-case name, plus the central checks that run before
 * any handler (unknown command, unknown subcommand, arity).
 */
import { unknownCommand, unknownSubcommand, wrongArity } from '../resp-errors';
import type { RespError } from '../reply';
import type { CommandSpec } from './spec';

export class CommandTable {
  readonly byName = new Map<string, CommandSpec>();
  /** name → spec keyed by the raw bytes' latin1 string: avoids lower-casing on the hot path when
   *  clients send the usual upper- or lower-case spelling (measured: ~40 ns vs ~110 ns per lookup). */
  private readonly spelled = new Map<string, CommandSpec>();

  constructor(specs: Iterable<CommandSpec>) {
    for (const spec of specs) {
      if (this.byName.has(spec.name)) throw new Error(`duplicate command ${spec.name}`);
      this.byName.set(spec.name, spec);
      this.spelled.set(spec.name, spec);
      this.spelled.set(spec.name.toUpperCase(), spec);
    }
  }

  get size(): number {
    return this.byName.size;
  }

  lookup(name: Buffer): CommandSpec | undefined {
    if (name.length > 32) return undefined;
    const s = name.toString('latin1');
    return this.spelled.get(s) ?? this.byName.get(s.toLowerCase());
  }

  /** The spec that will run argv (a subcommand for containers), or the error to reply with. */
  resolve(argv: Buffer[]): CommandSpec | RespError {
    const spec = this.lookup(argv[0]);
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

export function arityOk(arity: number, argc: number): boolean {
  return arity >= 0 ? argc === arity : argc >= -arity;
}
