/**
 * CLIENT UNBLOCK client-id [TIMEOUT | ERROR] — ends another client's blocking command as if it
 * timed out, or with the UNBLOCKED error; 1 when that client was blocked, else 0. The client may
 * be on any worker: asked of each through the primary.
 * https://redis.io/commands/client-unblock/
 */
import { RespError } from '../../../reply';
import { Err } from '../../../resp-errors';
import { eqIgnoreCase, parseI64 } from '../../args';
import { defineCommand } from '../../define';

const kReason = new RespError('ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR');

export const clientUnblock = defineCommand({
  name: 'client|unblock', arity: -3, flags: ['admin', 'noscript', 'loading', 'stale'],
  acl: ['admin', 'slow', 'dangerous', 'connection'], group: 'connection', since: '5.0.0',
  summary: 'Unblocks a client blocked by a blocking command from a different connection.',
  complexity: 'O(log N) where N is the number of client connections',
  async run(s, argv) {
    // Redis 7.0 parses CLIENT UNBLOCK inside clientCommand, which accepts 3 or 4 arguments
    if (argv.length > 4) {
      return new RespError(`ERR unknown subcommand or wrong number of arguments for '${argv[1].toString('latin1')}'. Try CLIENT HELP.`);
    }
    const id = parseI64(argv[2]);
    if (id === undefined) return Err.notInteger;
    let error = false;
    if (argv.length === 4) {
      if (eqIgnoreCase(argv[3], 'error')) error = true;
      else if (!eqIgnoreCase(argv[3], 'timeout')) return kReason;
    }
    if (id <= 0n || id > BigInt(Number.MAX_SAFE_INTEGER)) return 0;
    return s.server.unblockClient(Number(id), error);
  },
});
