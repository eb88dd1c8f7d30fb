/**
 * The Lua engine of this worker thread, configured once per process. Its native thread pool has
 * one thread per script connection of the process (workers × --script-connections): a script
 * holds its transaction's row locks while it waits for a thread, so with fewer threads than open
 * transactions, scripts holding threads could wait on locks of a script queued for one, and
 * nothing (not Postgres's deadlock detector) would see it.
 */
import { scriptEngine, type ScriptEngine } from '../../scripting/engine';
import type { Session } from '../../session';

export function engineOf(s: Session): ScriptEngine {
  const config = s.server.config;
  return scriptEngine({ threads: config.int('workers') * config.int('script-connections') });
}
