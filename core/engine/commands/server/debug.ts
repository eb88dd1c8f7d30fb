/**
 * DEBUG PANIC | SLEEP seconds | WRITE-HOOK ON|READ|OFF | HELP — only with --enable-debug-command
 * yes (or local for loopback clients), like Redis 7. PANIC stops this worker thread only: the
 * crash-recovery path (clients of that worker are disconnected, the thread is replaced) is what
 * the tests exercise with it.
 * WRITE-HOOK reads this worker's committed-write hook (core/engine/write-hook-log.ts).
 * https://redis.io/commands/debug/
 */
import { kOk } from '../../shared-replies';
import { Err } from '../../resp-errors';
import { RespError, Simple } from '../../reply';
import { lower } from '../args';
import { defineCommand } from '../define';
import { readLog, startLog, stopLog } from '../../write-hook-log';

export const debug = defineCommand({
  name: 'debug', arity: -2, flags: ['admin', 'noscript', 'loading', 'stale'], acl: ['admin', 'slow', 'dangerous'],
  summary: 'A container for debugging commands.',
  run(s, argv) {
    const allowed = s.server.config.str('enable-debug-command');
    if (allowed === 'no' || (allowed === 'local' && !s.local)) return Err.debugNotAllowed;
    const sub = lower(argv[1]);
    if (sub === 'panic' || sub === 'segfault') {
      s.server.crash();
      return new Promise(() => undefined); // never answered: the thread is about to die
    }
    if (sub === 'sleep' && argv.length === 3) {
      const secs = Number(argv[2].toString());
      if (!Number.isFinite(secs) || secs < 0) return Err.notFloat;
      // blocks this worker's event loop on purpose, as Redis blocks its only thread
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, secs * 1000);
      return kOk;
    }
    if (sub === 'write-hook' && argv.length === 3) {
      const op = lower(argv[2]);
      const hook = s.server.writeHook;
      if (op === 'on') { startLog(hook); return kOk; }
      if (op === 'off') { stopLog(hook); return kOk; }
      if (op === 'read') return readLog(hook);
      return Err.syntax;
    }
    if (sub === 'help') {
      return ['DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:', 'PANIC', '    Stop this worker thread.',
        'SLEEP <seconds>', '    Stop the worker for <seconds>.',
        'WRITE-HOOK ON|READ|OFF', '    Log this worker\'s committed-write reports; READ returns [db, event, key, maybe] each and clears.',
        'HELP', '    Print this help.'].map((l) => new Simple(l));
    }
    return new RespError(`ERR unknown subcommand '${argv[1].toString()}'. Try DEBUG HELP.`);
  },
});
