/**
 * ACL LOG [count | RESET]: every worker's entries (core/acl/log.ts), newest first, in Redis 7.0's
 * fields; age-seconds is a double, as Redis replies it.
 * https://redis.io/commands/acl-log/
 */
import { RespDouble, RespError, RespMap, type Reply } from '../../reply';
import { kOk } from '../../shared-replies';
import { eqIgnoreCase, parseI64 } from '../args';
import { Err } from '../../resp-errors';
import type { Session } from '../../session';
import type { AclLogEntry } from '../../../acl/log';

export async function aclLogReply(s: Session, argv: Buffer[]): Promise<Reply> {
  if (argv.length > 3) return new RespError("ERR unknown subcommand or wrong number of arguments for 'log' command");
  let count = 10;
  if (argv.length === 3) {
    if (eqIgnoreCase(argv[2], 'reset')) {
      await s.server.aclLogGather(true);
      return kOk;
    }
    const n = parseI64(argv[2]);
    if (n === undefined || n < 0n) return Err.notInteger;
    count = Number(n);
  }
  const entries = (await s.server.aclLogGather(false)) as AclLogEntry[];
  const now = Date.now();
  return entries.slice(0, count).map((e) => new RespMap([
    'count', e.count, 'reason', e.reason, 'context', e.context, 'object', e.object, 'username', e.username,
    'age-seconds', new RespDouble((now - e.created) / 1000), 'client-info', e.clientInfo,
  ]));
}
