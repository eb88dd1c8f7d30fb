/**
 * COMMAND [COUNT | INFO name… | DOCS name… | LIST [FILTERBY …] | GETKEYS cmd args… | HELP]
 * Everything here is read off the command table.
 * https://redis.io/commands/command/
 */
import { globMatch } from '../../glob';
import { RespError, RespMap, RespSet, Simple, type Reply } from '../../reply';
import { Err } from '../../resp-errors';
import type { Session } from '../../session';
import { eqIgnoreCase, lower } from '../args';
import { defineCommand } from '../define';
import { helpReply } from '../help';
import { arityOk } from '../registry';
import { kFlagWrite, shownFlags } from '../flags';
import { keysOf, type CommandSpec } from '../spec';

const acl = ['slow', 'connection'];

/** Simplified key specs (Redis's carry per-key flags like RM/OW/INSERT that the table does not hold). */
function keySpecs(spec: CommandSpec): Reply[] {
  const { first, last, step, numkeysAt, afterKeyword } = spec.keys;
  const flags = new RespSet(((spec.flagBits & kFlagWrite) !== 0 ? ['RW', 'UPDATE'] : ['RO', 'ACCESS']).map((f) => new Simple(f)));
  const out: Reply[] = [];
  if (first !== 0) {
    const lastkey = last < 0 ? last : last - first;
    out.push(new RespMap([
      'flags', flags,
      'begin_search', new RespMap(['type', 'index', 'spec', new RespMap(['index', first])]),
      'find_keys', new RespMap(['type', 'range', 'spec', new RespMap(['lastkey', lastkey, 'keystep', step, 'limit', 0])]),
    ]));
  }
  if (numkeysAt !== undefined) {
    out.push(new RespMap([
      'flags', flags,
      'begin_search', new RespMap(['type', 'index', 'spec', new RespMap(['index', numkeysAt])]),
      'find_keys', new RespMap(['type', 'keynum', 'spec', new RespMap(['keynumidx', 0, 'firstkey', 1, 'keystep', 1])]),
    ]));
  }
  if (afterKeyword !== undefined) {
    out.push(new RespMap([
      'flags', flags,
      'begin_search', new RespMap(['type', 'keyword', 'spec', new RespMap(['keyword', afterKeyword.word.toUpperCase(), 'startfrom', afterKeyword.from])]),
      'find_keys', new RespMap(['type', 'range', 'spec', new RespMap(['lastkey', -1, 'keystep', 1, 'limit', 2])]),
    ]));
  }
  return out;
}

const simples = (names: readonly string[], prefix = ''): RespSet => new RespSet(names.map((n) => new Simple(prefix + n)));

function info(spec: CommandSpec): Reply {
  return [
    spec.name, spec.arity, simples(shownFlags(spec.flagBits)),
    spec.keys.first, spec.keys.last, spec.keys.step,
    simples(spec.acl, '@'), simples(spec.tips ?? []), keySpecs(spec),
    (spec.subcommands ?? []).map(info),
  ];
}

function docs(spec: CommandSpec): Reply {
  const d: Reply[] = ['summary', spec.summary, 'since', spec.since, 'group', spec.group];
  if (spec.complexity) d.push('complexity', spec.complexity);
  if (spec.subcommands) {
    const subs: Reply[] = [];
    for (const c of spec.subcommands) subs.push(c.name, docs(c));
    d.push('subcommands', new RespMap(subs));
  }
  return new RespMap(d);
}

function find(s: Session, name: Buffer): CommandSpec | undefined {
  const n = lower(name);
  const bar = n.indexOf('|');
  if (bar < 0) return s.server.commands.byName.get(n);
  return s.server.commands.byName.get(n.slice(0, bar))?.subcommands?.find((c) => c.name === n);
}

const commandCount = defineCommand({
  name: 'command|count', arity: 2, flags: ['loading', 'stale'], acl, since: '2.8.13',
  summary: 'Returns a count of commands.', run: (s) => s.server.commands.size,
});

const commandInfo = defineCommand({
  name: 'command|info', arity: -2, flags: ['loading', 'stale'], acl, since: '2.8.13',
  tips: ['nondeterministic_output_order'],
  summary: 'Returns information about one, multiple or all commands.',
  run(s, argv) {
    if (argv.length === 2) return [...s.server.commands.all()].map(info);
    return argv.slice(2).map((n) => { const c = find(s, n); return c ? info(c) : null; });
  },
});

const commandDocs = defineCommand({
  name: 'command|docs', arity: -2, flags: ['loading', 'stale'], acl, since: '7.0.0',
  tips: ['nondeterministic_output_order'],
  summary: 'Returns documentary information about one, multiple or all commands.',
  run(s, argv) {
    const out: Reply[] = [];
    const specs = argv.length === 2 ? [...s.server.commands.all()] : argv.slice(2).map((n) => find(s, n));
    for (const c of specs) if (c) out.push(c.name, docs(c));
    return new RespMap(out);
  },
});

const commandList = defineCommand({
  name: 'command|list', arity: -2, flags: ['loading', 'stale'], acl, since: '7.0.0',
  tips: ['nondeterministic_output_order'],
  summary: 'Returns a list of command names.',
  run(s, argv) {
    let keep: (c: CommandSpec) => boolean = () => true;
    if (argv.length === 5 && eqIgnoreCase(argv[2], 'filterby')) {
      const how = lower(argv[3]);
      const what = argv[4];
      if (how === 'module') keep = () => false;
      else if (how === 'aclcat') keep = (c) => c.acl.includes(lower(what));
      else if (how === 'pattern') keep = (c) => globMatch(what, Buffer.from(c.name), true);
      else return Err.syntax;
    } else if (argv.length !== 2) return Err.syntax;
    const names: string[] = [];
    for (const c of s.server.commands.all()) {
      if (keep(c)) names.push(c.name);
      for (const sub of c.subcommands ?? []) if (keep(sub)) names.push(sub.name);
    }
    return names;
  },
});

const commandGetkeys = defineCommand({
  name: 'command|getkeys', arity: -4, flags: ['loading', 'stale'], acl, since: '2.8.13',
  summary: 'Extracts the key names from an arbitrary command.',
  run(s, argv) {
    const args = argv.slice(2);
    let spec = s.server.commands.lookup(args[0]);
    const container = spec?.name;
    if (spec?.subcommands !== undefined) spec = spec.subcommands.find((c) => c.name === `${container}|${lower(args[1])}`);
    if (spec === undefined) return new RespError('ERR Invalid command specified');
    if (spec.keys.first === 0 && spec.keys.numkeysAt === undefined && spec.keys.afterKeyword === undefined) return new RespError('ERR The command has no key arguments');
    if (!arityOk(spec.arity, args.length)) return new RespError('ERR Invalid number of arguments specified for command');
    const keys = keysOf(spec, args);
    if (keys === undefined) return new RespError('ERR Invalid arguments specified for command');
    if (keys.length === 0) return new RespError('ERR The command has no key arguments');
    return keys;
  },
});

const subs = [commandCount, commandInfo, commandDocs, commandList, commandGetkeys];

export const command = defineCommand({
  name: 'command', arity: -1, flags: ['loading', 'stale'], acl, since: '2.8.13',
  tips: ['nondeterministic_output_order'],
  summary: 'Returns detailed information about all commands.',
  subcommands: [...subs, defineCommand({
    name: 'command|help', arity: 2, flags: ['loading', 'stale'], acl, since: '5.0.0',
    summary: 'Returns helpful text about the different subcommands.', run: () => helpReply('COMMAND', subs),
  })],
  run: (s) => [...s.server.commands.all()].map(info),
});
