/**
 * DEBUG PANIC | SLEEP seconds | HELP — only with --enable-debug-command yes (or local for loopback
 * clients), like Redis 7. PANIC stops this worker thread only: the crash-recovery path (clients of
 * that worker are disconnected, the thread is replaced) is what the tests exercise with it.
 * https://redis.io/commands/debug/
 */
import { kOk } from '../../shared-replies';
import { Err } from '../../resp-errors';
import { RespError, Simple } from '../../reply';
import { lower } from '../args';
import { defineCommand } from '../define';

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
    if (sub === 'help') {
      return ['DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:', 'PANIC', '    Stop this worker thread.',
        'SLEEP <seconds>', '    Stop the worker for <seconds>.', 'HELP', '    Print this help.'].map((l) => new Simple(l));
    }
    return new RespError(`ERR unknown subcommand '${argv[1].toString()}'. Try DEBUG HELP.`);
  },
});
