/**
 * A test channel onto a worker's write hook: `DEBUG WRITE-HOOK ON | READ | OFF` (only with
 * --enable-debug-command). ON registers a listener that keeps the reports in memory, READ
 * returns and clears them, OFF removes the listener (and so the hook's cost). The reports are
 * the worker's own: its clients' writes and the sweeper's expired keys.
 */
import { Simple, type Reply } from './reply';
import type { WriteHook } from './write-hook';

/** ON keeps the last this many reports; older ones are dropped */
export const kWriteHookLogMax = 10_000;

interface Log { reports: Reply[][]; stop: () => void }

const logs = new WeakMap<WriteHook, Log>();

/** ON: start (or restart, empty) the log of this hook. */
export function startLog(hook: WriteHook): void {
  const old = logs.get(hook);
  if (old !== undefined) { old.reports = []; return; }
  const log: Log = { reports: [], stop: () => undefined };
  log.stop = hook.listen({
    committed(db, event, key, maybe) {
      if (log.reports.length >= kWriteHookLogMax) log.reports.shift();
      log.reports.push([db, new Simple(event), key, maybe ? 1 : 0]);
    },
  });
  logs.set(hook, log);
}

/** READ: [db, event, key or nil (every key), maybe 0|1] per report, oldest first; the log empties. */
export function readLog(hook: WriteHook): Reply[][] {
  const log = logs.get(hook);
  if (log === undefined) return [];
  const out = log.reports;
  log.reports = [];
  return out;
}

/** OFF */
export function stopLog(hook: WriteHook): void {
  logs.get(hook)?.stop();
  logs.delete(hook);
}
