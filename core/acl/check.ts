/**
 * May this user run this command line? Redis 7.0's ACLCheckAllUserCommandPerm: each selector in
 * turn (root first); the first that allows the command, its keys and its channels wins; otherwise
 * the most telling refusal (channel > key > command; among equal ones the later argument).
 *
 * Key flags: Redis gives each key of each command its own access flags (SET's key is written
 * only, INCR's read and written). Our command table has no per-key flags, so a `write` command's
 * keys need both R and W and a `readonly` command's need R: never more than Redis allows, now
 * and then less (%W~ alone does not allow SET). `~pattern` (both) behaves exactly as in Redis.
 */
import { globMatch } from '../engine/glob';
import { kFlagNoAuth, kFlagReadonly, kFlagWrite } from '../engine/commands/flags';
import { keysOf, type CommandSpec } from '../engine/commands/spec';
import type { AclCommand } from './command-index';
import { kKeyRead, kKeyWrite, type Selector } from './selector';
import type { User } from './user';

export const kAclOk = 0;
export const kDeniedCmd = 1;
export const kDeniedKey = 2;
export const kDeniedChannel = 4;

export interface AclVerdict { code: number; pos: number }

/** How a command names channels: publish (one, argv[1]), subscribe (all), patterns (all, literal compare) */
const kChannelUse = new Map<string, 'pub' | 'sub' | 'pat'>([
  ['publish', 'pub'], ['spublish', 'pub'], ['subscribe', 'sub'], ['ssubscribe', 'sub'], ['psubscribe', 'pat'],
]);

export function checkUser(u: User, cmd: AclCommand, argv: Buffer[], out: AclVerdict): number {
  let code = kDeniedCmd;
  let pos = 0;
  let keys: Buffer[] | undefined | null = null;
  for (let i = -1; i < u.selectors.length; i++) {
    const s = i < 0 ? u.root : u.selectors[i];
    const r = checkSelector(s, cmd, argv, keys === null ? (keys = keyList(cmd.spec, argv)) : keys, out);
    if (r === kAclOk) return kAclOk;
    if (r > code || (r === code && out.pos > pos)) { code = r; pos = out.pos; }
  }
  out.code = code;
  out.pos = pos;
  return code;
}

function keyList(spec: CommandSpec, argv: Buffer[]): Buffer[] | undefined {
  return spec.keys.first === 0 && spec.keys.numkeysAt === undefined && spec.keys.afterKeyword === undefined ? undefined : keysOf(spec, argv);
}

function checkSelector(s: Selector, cmd: AclCommand, argv: Buffer[], keys: Buffer[] | undefined, out: AclVerdict): number {
  const spec = cmd.spec;
  out.pos = 0;
  if (!s.allCommands && (spec.flagBits & kFlagNoAuth) === 0 && s.allowed[cmd.id] === 0) {
    const args = s.firstArgs?.get(cmd.id);
    const at = cmd.parent !== undefined ? 2 : 1;
    if (args === undefined || argv.length < 2 || at >= argv.length) return kDeniedCmd;
    const first = argv[at].toString('latin1').toLowerCase();
    if (!args.some((a) => a.toLowerCase() === first)) return kDeniedCmd;
  }
  if (!s.allKeys && keys !== undefined && keys.length > 0) {
    const need = (spec.flagBits & kFlagWrite) !== 0 ? kKeyRead | kKeyWrite : (spec.flagBits & kFlagReadonly) !== 0 ? kKeyRead : 0;
    for (const key of keys) {
      if (!s.patterns.some((p) => (p.flags & need) === need && globMatch(p.buf, key))) {
        out.pos = argv.indexOf(key);
        return kDeniedKey;
      }
    }
  }
  const use = s.allChannels ? undefined : kChannelUse.get(spec.name);
  if (use !== undefined) {
    const last = use === 'pub' ? Math.min(1, argv.length - 1) : argv.length - 1;
    for (let i = 1; i <= last; i++) {
      const ch = argv[i];
      const ok = use === 'pat'
        ? s.channels.some((c) => c.buf.equals(ch))
        : s.channels.some((c) => globMatch(c.buf, ch));
      if (!ok) { out.pos = i; return kDeniedChannel; }
    }
  }
  return kAclOk;
}

/** The NOPERM reply text for a refusal (processCommand's, Redis 7.0) */
export function nopermText(code: number, spec: CommandSpec): string {
  if (code === kDeniedCmd) return `NOPERM this user has no permissions to run the '${spec.name}' command`;
  if (code === kDeniedKey) return 'NOPERM this user has no permissions to access one of the keys used as arguments';
  return 'NOPERM this user has no permissions to access one of the channels used as arguments';
}
