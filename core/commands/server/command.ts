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
import { keysOf, type CommandSpec } from '../spec';

const acl = ['slow', 'connection'];

function keySpecs(spec: CommandSpec): Reply[] {
  if (spec.keys.first === 0) return [];
  const flags = spec.flags.includes('write') ? ['RW', 'UPDATE'] : ['RO', 'ACCESS'];
  const lastkey = spec.keys.last < 0 ? spec.keys.last : spec.keys.last - spec.keys.first;
  return [new RespMap([
    'flags', new RespSet(flags.map((f) => new Simple(f))),
    'begin_search', new RespMap(['type', 'index', 'spec', new RespMap(['index', spec.keys.first])]),
    'find_keys', new RespMap(['type', 'range', 'spec', new RespMap(['lastkey', lastkey, 'keystep', spec.keys.step, 'limit', 0])]),
  ])];
}

function info(spec: CommandSpec): Reply {
  return [
    spec.name, spec.arity,
    new RespSet(spec.flags.map((f) => new Simple(f))),
    spec.keys.first, spec.keys.last, spec.keys.step,
    new RespSet(spec.acl.map((c) => new Simple(`@${c}`))),
    [], keySpecs(spec),
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
  summary: 'Returns information about one, multiple or all commands.',
  run(s, argv) {
    if (argv.length === 2) return [...s.server.commands.all()].map(info);
    return argv.slice(2).map((n) => { const c = find(s, n); return c ? info(c) : null; });
  },
});

const commandDocs = defineCommand({
  name: 'command|docs', arity: -2, flags: ['loading', 'stale'], acl, since: '7.0.0',
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
  name: 'command|getkeys', arity: -3, flags: ['loading', 'stale'], acl, since: '2.8.13',
  summary: 'Extracts the key names from an arbitrary command.',
  run(s, argv) {
    const args = argv.slice(2);
    const spec = s.server.commands.lookup(args[0]);
    if (spec === undefined) return new RespError('ERR Invalid command specified');
    if (!arityOk(spec.arity, args.length)) return new RespError('ERR Invalid number of arguments specified for command');
    const keys = keysOf(spec, args);
    if (keys.length === 0) return new RespError('ERR The command has no key arguments');
    return keys;
  },
});

const subs = [commandCount, commandInfo, commandDocs, commandList, commandGetkeys];

export const command = defineCommand({
  name: 'command', arity: -1, flags: ['loading', 'stale'], acl, since: '2.8.13',
  summary: 'Returns detailed information about all commands.',
  subcommands: [...subs, defineCommand({
    name: 'command|help', arity: 2, flags: ['loading', 'stale'], acl, since: '5.0.0',
    summary: 'Returns helpful text about the different subcommands.', run: () => helpReply('COMMAND', subs),
  })],
  run: (s) => [...s.server.commands.all()].map(info),
});
