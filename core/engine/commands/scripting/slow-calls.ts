/**
 * One log line per call that runs longer than busy-reply-threshold (lua-time-limit), with Redis
 * 7.0's words plus what differs here: Redis then answers BUSY to every other client until the
 * script ends or is killed; PostRESP blocks nobody (only writers of the keys the call locked wait,
 * and EVAL/FCALL calls that would wait for its script connection answer BUSY: ./busy.ts), so the
 * line is the main sign of a runaway script. Checked every 100 ms while calls run, by one
 * timer per worker thread: a call only adds and removes itself from a Set (~0.1 µs, against
 * ~500 µs of server CPU per EVALSHA, docs/BENCHMARKS.md).
 */
import type { ServerContext } from '../../session';

interface Watched { start: number; kind: 'script' | 'function'; name: string; server: ServerContext; logged: boolean }

const kCheckMs = 100;
const watched = new Set<Watched>();
let timer: NodeJS.Timeout | undefined;

/** busy-reply-threshold, or lua-time-limit when that was set lower (Redis keeps one value under
 * both names; here they are two accepted options) */
export function thresholdMs(server: ServerContext): number {
  const ms = Math.min(Number(server.config.str('busy-reply-threshold')), Number(server.config.str('lua-time-limit')));
  return Number.isNaN(ms) ? Infinity : ms;
}

function check(): void {
  const now = Date.now();
  for (const w of watched) {
    if (w.logged || now - w.start < thresholdMs(w.server)) continue;
    w.logged = true;
    w.server.log?.(`Slow script detected: still in execution after ${now - w.start} milliseconds. You can try killing the ` +
      `script using the ${w.kind === 'function' ? 'FUNCTION KILL' : 'SCRIPT KILL'} command. Script name is: ${w.name}. ` +
      'Other clients are not blocked meanwhile: only writers of the keys it locked wait for it, and EVAL/FCALL calls ' +
      'that have to wait for a script connection or a Lua thread answer BUSY.');
  }
  if (watched.size === 0 && timer !== undefined) {
    clearInterval(timer);
    timer = undefined;
  }
}

/** A call's Lua code starts running; pass what it returns to callEnded. */
export function callStarted(server: ServerContext, kind: 'script' | 'function', name: string): Watched {
  const w: Watched = { start: Date.now(), kind, name, server, logged: false };
  watched.add(w);
  if (timer === undefined) {
    timer = setInterval(check, kCheckMs);
    timer.unref();
  }
  return w;
}

export function callEnded(w: Watched): void {
  watched.delete(w);
}
