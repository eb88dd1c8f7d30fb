/**
 * EXEC — run the queued commands as one Postgres transaction sent as one pipeline. A queueing
 * error aborts (EXECABORT); a changed WATCHed key gives a null array; a runtime error (WRONGTYPE)
 * is returned in its slot while the other commands take effect, as in Redis.
 * https://redis.io/commands/exec/
 */
import { RespError, kNullArray, type Reply } from '../../reply';
import { defineCommand } from '../define';

const kWithout = new RespError('ERR EXEC without MULTI');
const kAbort = new RespError('EXECABORT Transaction discarded because of previous errors.');

export const exec = defineCommand({
  name: 'exec', arity: 1, flags: ['noscript', 'loading', 'stale', 'skip_slowlog'], acl: ['slow', 'transaction'],
  group: 'transactions', since: '1.2.0', summary: 'Executes all commands in a transaction.',
  async run(s): Promise<Reply> {
    const queued = s.multi;
    if (queued === undefined) return kWithout;
    const aborted = s.multiAborted;
    const watched = s.watched;
    s.multi = undefined;
    s.multiAborted = false;
    s.watched = [];
    if (aborted) {
      s.server.store.unwatch(s, watched);
      return kAbort;
    }
    const replies = await s.server.store.transaction(s, watched, () => queued.map(({ spec, argv }) => {
      try {
        return spec.run(s, argv);
      } catch (e) {
        return new RespError(`ERR internal error: ${(e as Error).message}`);
      }
    }));
    return replies ?? kNullArray;
  },
});
