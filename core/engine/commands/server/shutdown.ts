/**
 * SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT] — stops the server gracefully: listeners close,
 * every worker flushes what was read, storage stops. Nothing to save here: Postgres already has
 * every acknowledged write, so SAVE/NOSAVE are accepted and mean the same.
 * https://redis.io/commands/shutdown/
 */
import { RespError, kNoReply } from '../../reply';
import { Err } from '../../resp-errors';
import { lower } from '../args';
import { defineCommand } from '../define';

export const shutdown = defineCommand({
  name: 'shutdown', arity: -1, flags: ['admin', 'noscript', 'loading', 'stale', 'no_multi', 'sentinel', 'allow_busy'],
  acl: ['admin', 'slow', 'dangerous'], summary: 'Synchronously saves the database(s) to disk and shuts down the server.',
  async run(s, argv) {
    const opts = new Set<string>();
    for (let i = 1; i < argv.length; i++) {
      const o = lower(argv[i]);
      if (!['nosave', 'save', 'now', 'force', 'abort'].includes(o)) return Err.syntax;
      opts.add(o);
    }
    if (opts.has('save') && opts.has('nosave')) return Err.syntax;
    if (opts.has('abort')) {
      if (opts.size > 1) return Err.syntax;
      return new RespError('ERR No shutdown in progress.');
    }
    s.closeAfterReply();
    await s.server.shutdown();
    return kNoReply;
  },
});
