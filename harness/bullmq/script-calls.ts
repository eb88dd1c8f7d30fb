// Which of BullMQ's scripts a run sends, how often, and how long each waits for its reply, counted
// in the client: ioredis's Redis#sendCommand sees every command, pipelined ones too, and BullMQ's
// scripts are ioredis custom commands (EVALSHA of a sha whose name is in the client's scriptsSet).
// PostRESP has no MONITOR, and INFO commandstats counts EVALSHA without saying which script.

import { createHash } from 'node:crypto';
import Redis from 'ioredis';

interface Tally { calls: number; totalMs: number }

export interface ScriptCall { name: string; calls: number; meanMs: number }

const tallies = new Map<string, Tally>();
const names = new Map<string, string>();
let counting = false;
let installed = false;

function learnNames(client: { scriptsSet?: Record<string, { sha: string }> }): void {
  for (const [name, script] of Object.entries(client.scriptsSet ?? {})) names.set(script.sha, name.replace(/-\d+$/, ''));
}

function key(name: string, args: unknown[]): string {
  if (name === 'evalsha') return `sha:${String(args[0])}`;
  if (name === 'eval') return `sha:${createHash('sha1').update(String(args[0])).digest('hex')}`;
  return name;
}

/** Wraps Redis#sendCommand once; calls are tallied between start() and stop(). */
export function installScriptCounter(): void {
  if (installed) return;
  installed = true;
  const proto = Redis.prototype as unknown as { sendCommand(this: unknown, c: CommandLike, s?: unknown): unknown };
  const send = proto.sendCommand;
  proto.sendCommand = function (this: unknown, command: CommandLike, stream?: unknown) {
    if (counting) {
      learnNames(this as { scriptsSet?: Record<string, { sha: string }> });
      const k = key(command.name, command.args);
      const t0 = performance.now();
      const done = () => {
        const t = tallies.get(k) ?? { calls: 0, totalMs: 0 };
        t.calls++;
        t.totalMs += performance.now() - t0;
        tallies.set(k, t);
      };
      command.promise.then(done, done);
    }
    return send.call(this, command, stream);
  };
}

interface CommandLike { name: string; args: unknown[]; promise: Promise<unknown> }

export function startCounting(): void {
  tallies.clear();
  counting = true;
}

/** The tallies since startCounting, most calls first; scripts by BullMQ's name, commands lower-case. */
export function stopCounting(): ScriptCall[] {
  counting = false;
  const out: ScriptCall[] = [];
  for (const [k, t] of tallies) {
    const name = k.startsWith('sha:') ? `EVALSHA ${names.get(k.slice(4)) ?? k.slice(4, 12)}` : k;
    out.push({ name, calls: t.calls, meanMs: t.totalMs / t.calls });
  }
  return out.sort((a, b) => b.calls - a.calls);
}
