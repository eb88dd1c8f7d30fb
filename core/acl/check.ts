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

export function checkUser(u: User, cmd: AclCommand, argv: Buffer[], out: AclVerdict): number {
  const root = checkSelector(u.root, cmd, argv, out);
  if (root === kAclOk || u.selectors.length === 0) { out.code = root; return root; }
  let code = root;
  let pos = out.pos;
  for (const s of u.selectors) {
    const r = checkSelector(s, cmd, argv, out);
    if (r === kAclOk) return kAclOk;
    if (r > code || (r === code && out.pos > pos)) { code = r; pos = out.pos; }
  }
  out.code = code;
  out.pos = pos;
  return code;
}

/** a JS loop: Buffer#compare's native call cost ~200 ns a key for a 4-byte prefix */
function startsWith(key: Buffer, prefix: Buffer): boolean {
  const n = prefix.length;
  if (key.length < n) return false;
  for (let i = 0; i < n; i++) if (key[i] !== prefix[i]) return false;
  return true;
}

function keyAllowed(s: Selector, key: Buffer, need: number): boolean {
  const list = s.patterns;
  for (let i = 0; i < list.length; i++) {
    const p = list[i];
    if ((p.flags & need) !== need) continue;
    const prefix = p.prefix;
    if (prefix !== undefined ? startsWith(key, prefix) : globMatch(p.buf, key)) return true;
  }
  return false;
}

function checkSelector(s: Selector, cmd: AclCommand, argv: Buffer[], out: AclVerdict): number {
  const spec = cmd.spec;
  out.pos = 0;
  if (!s.allCommands && s.allowed[cmd.id] === 0 && (spec.flagBits & kFlagNoAuth) === 0) {
    const args = s.firstArgs?.get(cmd.id);
    const at = cmd.parent !== undefined ? 2 : 1;
    if (args === undefined || argv.length < 2 || at >= argv.length) return kDeniedCmd;
    const first = argv[at].toString('latin1').toLowerCase();
    if (!args.some((a) => a.toLowerCase() === first)) return kDeniedCmd;
  }
  const k = spec.keys;
  if (!s.allKeys && (k.first !== 0 || !cmd.fixedKeys)) {
    const need = (spec.flagBits & kFlagWrite) !== 0 ? kKeyRead | kKeyWrite : (spec.flagBits & kFlagReadonly) !== 0 ? kKeyRead : 0;
    if (cmd.fixedKeys) {
      // no key list is built: GET, SET, MGET… read their keys in place
      const last = k.last < 0 ? argv.length + k.last : k.last;
      for (let i = k.first; i <= last && i < argv.length; i += k.step) {
        if (!keyAllowed(s, argv[i], need)) { out.pos = i; return kDeniedKey; }
      }
    } else {
      for (const key of keysOf(spec, argv) ?? []) {
        if (!keyAllowed(s, key, need)) { out.pos = argv.indexOf(key); return kDeniedKey; }
      }
    }
  }
  const use = cmd.channels;
  if (use !== 0 && !s.allChannels) {
    const last = use === 1 ? Math.min(1, argv.length - 1) : argv.length - 1;
    for (let i = 1; i <= last; i++) {
      const ch = argv[i];
      const ok = use === 3
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
