/**
 * SELECT index — switches this connection to logical database `index` (0 … databases-1).
 * https://redis.io/commands/select/
 */
import { Err } from '../../resp-errors';
import { kOk } from '../../shared-replies';
import { parseI64 } from '../args';
import { defineCommand } from '../define';

export const select = defineCommand({
  name: 'select', arity: 2, flags: ['loading', 'stale', 'fast'], acl: ['fast', 'connection'],
  group: 'connection', summary: 'Changes the selected database.',
  run(session, argv) {
    const v = parseI64(argv[1]);
    if (v === undefined) return Err.notInteger;
    if (v < -2147483648n || v > 2147483647n) return Err.notInt32;
    const db = Number(v);
    if (db < 0 || db >= session.server.config.int('databases')) return Err.dbIndex;
    session.db = db;
    return kOk;
  },
});
