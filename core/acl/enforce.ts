/**
 * The ACL check as the command paths call it: dispatch (top level and MULTI queueing) and a
 * script's redis.call. Only users that are not `full` (+@all ~* &*) get here: for the default
 * user the hook in workers/dispatch.ts is one property read.
 */
import { RespError } from '../engine/reply';
import type { CommandSpec } from '../engine/commands/spec';
import type { Session } from '../engine/session';
import type { AclCommand } from './command-index';
import { checkUser, kDeniedChannel, kDeniedCmd, kDeniedKey, nopermText, type AclVerdict } from './check';

const verdict: AclVerdict = { code: 0, pos: 0 };
/** a pipeline repeats one command: its index entry is looked up once */
let lastSpec: CommandSpec | undefined;
let lastCmd: AclCommand | undefined;
let lastIndex: unknown;

/** 0 when allowed, else the refusal code; logs the refusal (ACL LOG) */
export function aclDenied(s: Session, spec: CommandSpec, argv: Buffer[], context: 'toplevel' | 'multi' | 'lua'): number {
  let cmd = lastCmd;
  if (spec !== lastSpec || s.server.acl.index !== lastIndex) {
    cmd = s.server.acl.index.of(spec);
    lastSpec = spec;
    lastCmd = cmd;
    lastIndex = s.server.acl.index;
  }
  if (cmd === undefined) return 0;
  const code = checkUser(s.user, cmd, argv, verdict);
  if (code === 0) return 0;
  s.server.aclLog.add({
    reason: code === kDeniedCmd ? 'command' : code === kDeniedKey ? 'key' : code === kDeniedChannel ? 'channel' : 'auth',
    context,
    object: code === kDeniedCmd ? spec.name : argv[verdict.pos].toString('latin1'),
    username: s.user.name,
    clientInfo: s.describe(),
  });
  return code;
}

/** dispatch's refusal: NOPERM in processCommand's words, or undefined */
export function aclRefusal(s: Session, spec: CommandSpec, argv: Buffer[]): RespError | undefined {
  const code = aclDenied(s, spec, argv, s.multi !== undefined ? 'multi' : 'toplevel');
  return code === 0 ? undefined : new RespError(nopermText(code, spec));
}

/** EXEC's refusal of a queued command the user lost between MULTI and EXEC (multi.c, 7.0) */
export function execRecheckText(code: number): string {
  const reason = code === kDeniedCmd ? 'no permission to execute the command or subcommand'
    : code === kDeniedKey ? 'no permission to touch the specified keys'
      : code === kDeniedChannel ? 'no permission to access one of the channels used as arguments' : 'no permission';
  return `NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: ${reason}`;
}

/** redis.call's refusal text (script.c scriptVerifyACL) */
export function scriptAclText(code: number): string {
  if (code === kDeniedCmd) return "The user executing the script can't run this command or subcommand";
  if (code === kDeniedKey) return "The user executing the script can't access at least one of the keys mentioned in the command arguments";
  return "The user executing the script can't publish to the channel mentioned in the command";
}
