/**
 * ACL SETUSER | GETUSER | DELUSER | USERS | LIST | WHOAMI | CAT | GENPASS | DRYRUN | LOG | SAVE | LOAD
 * The rules model is core/acl; changes go through the primary so every worker holds the same users.
 * https://redis.io/commands/acl-setuser/
 */
import { randomBytes } from 'node:crypto';
import { RespError, RespMap, type Reply } from '../../reply';
import { kOk } from '../../shared-replies';
import { lower, parseI64 } from '../args';
import { defineCommand } from '../define';
import { helpReply } from '../help';
import type { CommandSpec } from '../spec';
import { kAclCategories } from '../flags';
import { Err, wrongArity } from '../../resp-errors';
import { arityOk } from '../registry';
import { channelsText, describeCommandRules, keysText } from '../../../acl/describe';
import { byBytes } from '../../../acl/registry';
import { checkUser, kAclOk, kDeniedCmd, kDeniedKey, type AclVerdict } from '../../../acl/check';
import type { Selector } from '../../../acl/selector';
import { aclLogReply } from './acl-log';

const flags = ['admin', 'noscript', 'loading', 'stale'] as const;
const acl = ['admin', 'slow', 'dangerous'];
const latin = (b: Buffer): string => b.toString('latin1');

const setuser = defineCommand({
  name: 'acl|setuser', arity: -3, flags: [...flags], acl, since: '6.0.0', summary: 'Creates and modifies an ACL user and its rules.',
  async run(s, argv) {
    const err = await s.server.aclRequest({ op: 'setuser', name: latin(argv[2]), rules: argv.slice(3).map(latin) });
    return err === null ? kOk : new RespError(`ERR ${err}`);
  },
});

function selectorMap(sel: Selector): (string | string[])[] {
  return ['commands', describeCommandRules(sel), 'keys', keysText(sel), 'channels', channelsText(sel)];
}

const getuser = defineCommand({
  name: 'acl|getuser', arity: 3, flags: [...flags], acl, since: '6.0.0', summary: 'Lists the ACL rules of a user.',
  run(s, argv) {
    const u = s.server.acl.users.get(latin(argv[2]));
    if (u === undefined) return null;
    return new RespMap([
      'flags', u.flagNames(), 'passwords', [...u.passwords], ...selectorMap(u.root),
      'selectors', u.selectors.map((sel) => new RespMap(selectorMap(sel))),
    ]);
  },
});

const deluser = defineCommand({
  name: 'acl|deluser', arity: -3, flags: [...flags], acl, since: '6.0.0', summary: 'Deletes ACL users, and terminates their connections.',
  async run(s, argv) {
    const names = argv.slice(2).map(latin);
    const n = new Set(names.filter((x) => s.server.acl.users.has(x))).size;
    const err = await s.server.aclRequest({ op: 'deluser', names });
    return err === null ? n : new RespError(`ERR ${err}`);
  },
});

const users = defineCommand({
  name: 'acl|users', arity: 2, flags: [...flags], acl, since: '6.0.0', summary: 'Lists all ACL users.',
  run: (s) => [...s.server.acl.users.keys()].sort(byBytes),
});

const list = defineCommand({
  name: 'acl|list', arity: 2, flags: [...flags], acl, since: '6.0.0', summary: 'Dumps the effective rules in ACL file format.',
  run: (s) => s.server.acl.list(),
});

const whoami = defineCommand({
  name: 'acl|whoami', arity: 2, flags: ['noscript', 'loading', 'stale'], acl: ['slow'], since: '6.0.0',
  summary: 'Returns the authenticated username of the current connection.',
  run: (s) => s.user.name,
});

const cat = defineCommand({
  name: 'acl|cat', arity: -2, flags: ['noscript', 'loading', 'stale'], acl: ['slow'], since: '6.0.0',
  summary: 'Lists the ACL categories, or the commands inside a category.',
  run(s, argv): Reply {
    if (argv.length > 3) return wrongArity('acl|cat');
    if (argv.length === 2) return [...kAclCategories];
    const members = kAclCategories.includes(lower(argv[2]) as never) ? s.server.acl.index.category(lower(argv[2])) : undefined;
    if (members === undefined) return new RespError(`ERR Unknown category '${latin(argv[2])}'`);
    return members.map((c) => c.spec.name);
  },
});

const genpass = defineCommand({
  name: 'acl|genpass', arity: -2, flags: ['noscript', 'loading', 'stale'], acl: ['slow'], since: '6.0.0',
  summary: 'Generates a pseudorandom, secure password that can be used to identify ACL users.',
  run(_s, argv) {
    if (argv.length > 3) return wrongArity('acl|genpass');
    let bits = 256;
    if (argv.length === 3) {
      const n = parseI64(argv[2]);
      if (n === undefined) return Err.notInteger;
      if (n <= 0n || n > 4096n) return new RespError('ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096');
      bits = Number(n);
    }
    const chars = Math.floor((bits + 3) / 4);
    return randomBytes(Math.ceil(chars / 2)).toString('hex').slice(0, chars);
  },
});

const verdict: AclVerdict = { code: 0, pos: 0 };
const dryrun = defineCommand({
  name: 'acl|dryrun', arity: -4, flags: [...flags], acl, since: '7.0.0',
  summary: 'Simulates the execution of a command by a user, without executing the command.',
  run(s, argv) {
    const u = s.server.acl.users.get(latin(argv[2]));
    if (u === undefined) return new RespError(`ERR User '${latin(argv[2])}' not found`);
    const line = argv.slice(3);
    const spec = s.server.commands.lookup(line[0]);
    if (spec === undefined) return new RespError(`ERR Command '${latin(line[0])}' not found`);
    if (!arityOk(spec.arity, line.length)) return wrongArity(spec.name);
    const resolved = s.server.commands.resolve(line);
    const target = resolved instanceof RespError ? spec : resolved;
    const cmd = s.server.acl.index.of(target);
    if (cmd === undefined) return kOk;
    const code = checkUser(u, cmd, line, verdict);
    if (code === kAclOk) return kOk;
    if (code === kDeniedCmd) return `This user has no permissions to run the '${target.name}' command`;
    if (code === kDeniedKey) return `This user has no permissions to access the '${latin(line[verdict.pos])}' key`;
    return `This user has no permissions to access the '${latin(line[verdict.pos])}' channel`;
  },
});

const log = defineCommand({
  name: 'acl|log', arity: -2, flags: [...flags], acl, since: '6.0.0', summary: 'Lists recent security events generated due to ACL rules.',
  run: (s, argv) => aclLogReply(s, argv),
});

const save = defineCommand({
  name: 'acl|save', arity: 2, flags: [...flags], acl, since: '6.0.0', summary: 'Saves the effective ACL rules in the configured ACL file.',
  async run(s) {
    const err = await s.server.aclRequest({ op: 'save' });
    return err === null ? kOk : new RespError(`ERR ${err}`);
  },
});

const load = defineCommand({
  name: 'acl|load', arity: 2, flags: [...flags], acl, since: '6.0.0', summary: 'Reloads the rules from the configured ACL file.',
  async run(s) {
    const err = await s.server.aclRequest({ op: 'loadfile' });
    return err === null ? kOk : new RespError(`ERR ${err}`);
  },
});

const subs: CommandSpec[] = [cat, deluser, dryrun, genpass, getuser, list, load, log, save, setuser, users, whoami];

export const aclCommand = defineCommand({
  name: 'acl', arity: -2, acl: ['slow'], since: '6.0.0', summary: 'A container for Access List Control commands.',
  subcommands: [...subs, defineCommand({
    name: 'acl|help', arity: 2, flags: ['loading', 'stale'], acl: ['slow'], since: '6.0.0',
    summary: 'Returns helpful text about the different subcommands.', run: () => helpReply('ACL', subs),
  })],
  run: () => null,
});
