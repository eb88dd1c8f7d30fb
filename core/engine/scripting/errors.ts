/** Texts and flag names of the Lua engine that the command layer needs (Redis 7.0's words). */

export type ScriptFlag = 'no-writes' | 'allow-oom' | 'allow-stale' | 'no-cluster' | 'allow-cross-slot-keys' | 'eval-compat';

const kFlagBits: ScriptFlag[] = ['no-writes', 'allow-oom', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys', 'eval-compat'];

/** Bit mask from the addon → names, in Redis's order (FUNCTION LIST prints them this way). */
export function flagNames(mask: number): ScriptFlag[] {
  return kFlagBits.filter((_, i) => mask & (1 << i));
}

/** What redis.call must see instead of a client's error text (Redis's scriptCall): the host
 *  returns these as error replies ("-ERR " + text). */
export const kScriptCallErrors = {
  unknownCommand: 'Unknown Redis command called from script',
  arity: 'Wrong number of args calling Redis command from script',
  writeInReadOnly: 'Write commands are not allowed from read-only scripts.',
  notAllowed: 'This Redis command is not allowed from script',
} as const;

/** Redis's BUSY texts (slowevalerr / slowscripterr) by the kind of call that keeps it busy: a
 * command refused behind a timed-out call, or a KILL of the other kind, names the KILL that helps */
export const kBusyText = {
  script: 'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.',
  function: 'BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.',
} as const;
const busyScript = `-${kBusyText.function}\r\n`;
const busyEval = `-${kBusyText.script}\r\n`;
const notBusy = '-NOTBUSY No scripts in execution right now.\r\n';
const unkillable = '-UNKILLABLE Sorry the script already executed write commands against the dataset. You can either ' +
  'wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.\r\n';

/** What SCRIPT KILL / FUNCTION KILL found (the addon's result codes) */
export const kKill = { ok: 0, notBusy: 1, unkillable: 2, wrongKind: 3 } as const;
export type KillResult = (typeof kKill)[keyof typeof kKill];

/** Replies of SCRIPT KILL / FUNCTION KILL by result code. */
export const kKillReplies: Record<'script' | 'function', Buffer[]> = {
  script: ['+OK\r\n', notBusy, unkillable, busyScript].map((s) => Buffer.from(s)),
  function: ['+OK\r\n', notBusy, unkillable, busyEval].map((s) => Buffer.from(s)),
};
